import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../support/free-port.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { report } from '../support/test-output.js';

/**
 * The service in a child process (ROLE=all, embedded stores) is killed with SIGKILL in the middle
 * of a delivery burst and started again on the same data: the receiver ends with every event at
 * least once, and with at most WEBHOOK_CONCURRENCY duplicates (the attempts in flight when the
 * process died, whose answers were never recorded) — the bound docs/decisions/0051-webhooks.md states.
 */
const CONCURRENCY = 10;
const EVENTS = 150;

function startService(dataDir: string, port: number): { child: ChildProcess; ready: Promise<string | null> } {
  const child = spawn(process.execPath, ['--import', './test/support/register-ts.mjs', 'apps/api/src/main.ts'], {
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', SCHEDULER: 'off', WEBHOOK_POLL_MS: '50', WEBHOOK_CONCURRENCY: String(CONCURRENCY), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const ready = new Promise<string | null>((resolve, reject) => {
    // The start-up text (the first start's keys, then "Billing service on …") is on stderr; the logs on stdout.
    child.stderr!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Billing service on')) resolve(/test: (sk_test_\S+)/.exec(out)?.[1] ?? null);
    });
    let logs = '';
    child.stdout!.on('data', (chunk: Buffer) => (logs = (logs + chunk.toString()).slice(-4000)));
    child.on('exit', (code) => reject(new Error(`service exited (${code}) before listening: ${out.slice(-2000)}\n${logs}`)));
  });
  return { child, ready };
}

const stopped = (child: ChildProcess) => new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));

test('SIGKILL during a delivery burst: after the restart every event arrives at least once, duplicates within the bound', async () => {
  let dataDir = mkdtempSync(join(tmpdir(), 'webhooks-crash-'));
  let port = await freePort();
  const r = await new WebhookReceiver().up();
  r.respond = () => ({ status: 200, delayMs: 100 }); // latency: attempts are in flight and a backlog builds
  const counts = new Map<string, number>();
  let first = startService(dataDir, port);
  let second: ReturnType<typeof startService> | null = null;
  try {
    // A port found free can be taken by a parallel suite before the child listens: try another.
    let key: string | null = null;
    for (let tries = 1; ; tries++) {
      try {
        key = (await first.ready) ?? key;
        break;
      } catch (error) {
        if (tries >= 3) throw error;
        console.warn(`webhooks crash test: first start failed, trying another port: ${(error as Error).message.slice(-500)}`);
        port = await freePort();
        dataDir = mkdtempSync(join(tmpdir(), 'webhooks-crash-'));
        first = startService(dataDir, port);
      }
    }
    const base = `http://127.0.0.1:${port}`;
    expect(key).toMatch(/^sk_test_/);
    const auth = { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}`, 'content-type': 'application/json' };
    const created = (await (await fetch(`${base}/v1/webhook_endpoints`, { method: 'POST', headers: auth, body: JSON.stringify({ url: r.url, enabled_events: ["product.*"] }) })).json()) as { secret: string };
    r.secrets = [created.secret];

    // The burst: products created 10 at a time; kill the service once deliveries are flowing.
    let sent = 0;
    const burst = (async () => {
      while (sent < EVENTS) {
        const batch = Array.from({ length: 10 }, () => fetch(`${base}/v1/products`, { method: 'POST', headers: auth, body: JSON.stringify({ name: `Burst ${sent++}` }) }).catch(() => null));
        if ((await Promise.all(batch)).some((x) => x === null)) return; // the service is gone
      }
    })();
    await r.until(() => r.received.length >= 20, 60_000, 'the burst to be delivered');
    first.child.kill('SIGKILL');
    await stopped(first.child);
    await burst;
    const beforeRestart = r.received.length;

    second = startService(dataDir, port);
    await second.ready;
    // Every product.created of the feed (including those whose request died with the process) arrives.
    const feed: string[] = [];
    let cursor = '';
    for (;;) {
      const page = (await (await fetch(`${base}/v1/events?limit=100&type=product.created${cursor ? `&starting_after=${cursor}` : ''}`, { headers: auth })).json()) as { data: { id: string }[]; has_more: boolean };
      feed.push(...page.data.map((e: { id: string }) => e.id));
      if (!page.has_more) break;
      cursor = page.data[page.data.length - 1].id;
    }
    // The kill came in the middle: events were in the feed that had not been delivered yet.
    expect(feed.length).toBeGreaterThan(beforeRestart);
    await r.until(() => feed.every((id) => r.ids().includes(id)), 60_000, 'every event after the restart');
    await new Promise((res) => setTimeout(res, 500)); // anything still to come would be a duplicate
    for (const id of r.ids()) counts.set(id, (counts.get(id) ?? 0) + 1);
    const duplicates = [...counts.values()].reduce((sum, n) => sum + n - 1, 0);
    expect([...counts.keys()].sort()).toEqual([...feed].sort());
    expect(duplicates).toBeLessThanOrEqual(CONCURRENCY);
    // Every receipt verified (the receiver answers 400 to anything it cannot verify, and keeps only verified ones).
    expect(r.received.every((x) => x.verifiedWith === created.secret)).toBe(true);
    report(`[webhooks crash] ${feed.length} events, ${beforeRestart} receipts before the kill, ${duplicates} duplicates after the restart (bound ${CONCURRENCY})`);
  } finally {
    first.child.kill('SIGKILL');
    if (second) {
      second.child.kill('SIGTERM');
      await stopped(second.child);
    }
    await r.down();
  }
}, 180_000);
