import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { webhookPartition } from '#platform/leases.js';
import { type ChildService, startChild, until } from '../support/child-service.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { report } from '../support/test-output.js';

/**
 * Two worker processes (ROLE=all, embedded stores) on one DATA_DIR share the background work by
 * leases (libs/platform/src/leases.ts). The one holding the webhook endpoint's partition is killed
 * with SIGKILL in the middle of a delivery burst (its leases are not handed back: they expire): the
 * other takes the partition over within the bound (TTL + one renewal, plus slack for a loaded
 * machine) and every event of the feed reaches the receiver, duplicates only from the attempts the
 * killed worker had in flight (at most WEBHOOK_CONCURRENCY). A worker frozen (SIGSTOP) while holding
 * the projections loses them to the other; resumed (SIGCONT), it stops acting on them: its own clock
 * says the lease lapsed, and a commit its pipeline had under way is refused by the fence.
 */
const TTL_MS = 3000;
const RENEW_MS = 500;
const CONCURRENCY = 10;
const EVENTS = 120;
const ENV = {
  EVENTSTORE_URL: '',
  MONGO_URL: '',
  SCHEDULER: 'off',
  RATE_LIMIT_MAX: '0',
  LEASE_TTL_MS: String(TTL_MS),
  LEASE_RENEW_MS: String(RENEW_MS),
  WEBHOOK_POLL_MS: '50',
  WEBHOOK_CONCURRENCY: String(CONCURRENCY),
};

interface Health {
  leases: { worker: string | null; held_here: string[]; units: { unit: string; holder: string | null; epoch: number }[]; workers: { worker: string; units: string[] }[] };
}
const health = async (s: ChildService) => (await (await fetch(`${s.url}/health`)).json()) as Health;


test('SIGKILL of the worker delivering an endpoint mid-burst: the other takes its partition within TTL + renewal, every event arrives, duplicates within the bound', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'worker-takeover-'));
  const r = await new WebhookReceiver().up();
  r.respond = () => ({ status: 200, delayMs: 100 }); // latency: attempts are in flight and a backlog builds
  const first = await startChild(null, dataDir, ENV);
  let second: ChildService | null = null;
  try {
    const key = first.testKey!;
    expect(key).toMatch(/^sk_test_/);
    const auth = { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}`, 'content-type': 'application/json' };
    const created = (await (await fetch(`${first.url}/v1/webhook_endpoints`, { method: 'POST', headers: auth, body: JSON.stringify({ url: r.url, enabled_events: ['product.*'] }) })).json()) as { id: string; secret: string };
    r.secrets = [created.secret];
    const unit = `webhooks/${webhookPartition(created.id)}`;

    second = await startChild(null, dataDir, ENV);
    // The units split between the two (12 units, SCHEDULER=off: 6 and 6) at the first one's next renewals.
    const split = await until('the units split between the workers', () => health(first), (h) => h.leases.workers.length === 2 && h.leases.workers.every((w) => w.units.length >= 5), 30_000);
    const holder = split.leases.units.find((u) => u.unit === unit)!;
    const [victim, survivor] = holder.holder === split.leases.worker ? [first, second] : [second, first];
    const survivorId = (await health(survivor)).leases.worker!;
    expect(holder.holder).not.toBe(survivorId);

    // The burst, through the survivor's API: products created 10 at a time.
    let sent = 0;
    const burst = (async () => {
      while (sent < EVENTS) {
        const batch = Array.from({ length: 10 }, () => fetch(`${survivor.url}/v1/products`, { method: 'POST', headers: auth, body: JSON.stringify({ name: `Burst ${sent++}` }) }).then((res) => res.status));
        const statuses = await Promise.all(batch);
        expect(statuses.every((s) => s === 200)).toBe(true);
      }
    })();
    await r.until(() => r.received.length >= 20, 60_000, 'the burst to be delivered');
    const killedAt = Date.now();
    await victim.kill('SIGKILL');
    const beforeTakeover = r.received.length;
    // The survivor takes the partition once the victim's lease expired: within TTL + one renewal (slack for a loaded machine).
    const taken = await until('the survivor holds the partition', () => health(survivor), (h) => h.leases.units.some((u) => u.unit === unit && u.holder === survivorId), TTL_MS + RENEW_MS + 10_000);
    const takeoverMs = Date.now() - killedAt;
    expect(takeoverMs).toBeLessThan(TTL_MS + RENEW_MS + 5000);
    expect(taken.leases.units.find((u) => u.unit === unit)!.epoch).toBe(holder.epoch + 1);
    await burst;
    // Then everything: the survivor holds every unit (12: the scheduler is off).
    await until('the survivor holds every unit', () => health(survivor), (h) => h.leases.held_here.length === 12, TTL_MS + 2 * RENEW_MS + 10_000);

    const feed: string[] = [];
    let cursor = '';
    for (;;) {
      const page = (await (await fetch(`${survivor.url}/v1/events?limit=100&type=product.created${cursor ? `&starting_after=${cursor}` : ''}`, { headers: auth })).json()) as { data: { id: string }[]; has_more: boolean };
      feed.push(...page.data.map((e) => e.id));
      if (!page.has_more) break;
      cursor = page.data[page.data.length - 1].id;
    }
    expect(feed).toHaveLength(EVENTS);
    expect(feed.length).toBeGreaterThan(beforeTakeover);
    await r.until(() => feed.every((id) => r.ids().includes(id)), 60_000, 'every event after the takeover');
    await new Promise((res) => setTimeout(res, 500)); // anything still to come would be a duplicate
    const counts = new Map<string, number>();
    for (const id of r.ids()) counts.set(id, (counts.get(id) ?? 0) + 1);
    const duplicates = [...counts.values()].reduce((sum, n) => sum + n - 1, 0);
    expect([...counts.keys()].sort()).toEqual([...feed].sort());
    expect(duplicates).toBeLessThanOrEqual(CONCURRENCY);
    expect(r.received.every((x) => x.verifiedWith === created.secret)).toBe(true);
    report(`[worker takeover] ${feed.length} events, ${beforeTakeover} receipts at the kill, partition ${unit} taken over in ${takeoverMs} ms (TTL ${TTL_MS} ms, renewal ${RENEW_MS} ms), ${duplicates} duplicates (bound ${CONCURRENCY})`);
  } finally {
    await first.kill('SIGKILL');
    await second?.kill('SIGKILL');
    await r.down();
  }
}, 240_000);

test('SIGSTOP of the worker holding the projections: the other takes them over and answers every write; resumed, the frozen one stops acting on them (its clock, the fence) and its late writes change nothing', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'worker-frozen-'));
  const first = await startChild(null, dataDir, { ...ENV, LOG_LEVEL: 'warn' });
  let second: ChildService | null = null;
  try {
    const key = first.testKey!;
    const auth = { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}`, 'content-type': 'application/json' };
    second = await startChild(null, dataDir, { ...ENV, LOG_LEVEL: 'warn' });
    const split = await until('the units split between the workers', () => health(first), (h) => h.leases.workers.length === 2 && h.leases.workers.every((w) => w.units.length >= 5), 30_000);
    // The projections are handed back last: the first worker kept them.
    const before = split.leases.units.find((u) => u.unit === 'projections')!;
    expect(before.holder).toBe(split.leases.worker);
    const secondId = (await health(second)).leases.worker!;

    first.process.kill('SIGSTOP');
    const frozenAt = Date.now();
    // Writes through the other worker: answered once it took the projections over (its reads wait for them).
    const names = Array.from({ length: 10 }, (_, i) => `Frozen ${i}`);
    const answers = await Promise.all(names.map((name) => fetch(`${second!.url}/v1/products`, { method: 'POST', headers: auth, body: JSON.stringify({ name }) }).then(async (res) => ({ status: res.status, body: (await res.json()) as { id: string; name: string } }))));
    const answeredMs = Date.now() - frozenAt;
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(answeredMs).toBeLessThan(TTL_MS + RENEW_MS + 5000);
    const taken = await health(second);
    expect(taken.leases.units.find((u) => u.unit === 'projections')).toMatchObject({ holder: secondId, epoch: before.epoch + 1 });

    // More writes while it is still frozen, then it resumes: its pipeline would project them under the old epoch.
    const more = await Promise.all(Array.from({ length: 5 }, (_, i) => fetch(`${second!.url}/v1/products`, { method: 'POST', headers: auth, body: JSON.stringify({ name: `Later ${i}` }) }).then((res) => res.json() as Promise<{ id: string; name: string }>)));
    expect(more.map((p) => p.name)).toEqual(Array.from({ length: 5 }, (_, i) => `Later ${i}`));
    first.process.kill('SIGCONT');
    // Resumed: it stops the projections (its own clock, or the fence refusing a commit) and holds none of its old epochs.
    await until('the resumed worker stopped the projections', async () => first.output(), (out) => /stopped projections: |projection pipeline stopped: lease projections is no longer held/.test(out), 10_000);
    const resumed = await until('the resumed worker answers', () => health(first), (h) => h.leases.units.length > 0, 10_000);
    expect(resumed.leases.held_here).not.toContain('projections');
    expect(resumed.leases.units.find((u) => u.unit === 'projections')).toMatchObject({ holder: secondId, epoch: before.epoch + 1 });
    // Nothing it wrote late undid the other's: every product reads as written, through either worker (it reads what the holder commits).
    for (const written of [...answers.map((a) => a.body), ...more]) {
      for (const worker of [first, second]) {
        const got = (await (await fetch(`${worker.url}/v1/products/${written.id}`, { headers: auth })).json()) as { id: string; name: string };
        expect({ id: got.id, name: got.name }).toEqual({ id: written.id, name: written.name });
      }
    }
    const list = (await (await fetch(`${second.url}/v1/products?limit=100`, { headers: auth })).json()) as { data: unknown[] };
    expect(list.data).toHaveLength(15);
    const fenced = /projection pipeline stopped: lease projections is no longer held/.test(first.output());
    report(`[worker frozen] projections taken over ${answeredMs} ms after SIGSTOP (TTL ${TTL_MS} ms); after SIGCONT the frozen worker stopped them by ${fenced ? 'the fence refusing its commit' : 'its own clock'}`);
  } finally {
    first.process.kill('SIGCONT');
    await first.kill('SIGKILL');
    await second?.kill('SIGKILL');
  }
}, 240_000);
