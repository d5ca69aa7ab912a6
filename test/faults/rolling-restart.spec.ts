import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ChildService, sendToLive, startChild } from '../support/child-service.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { report } from '../support/test-output.js';

/**
 * A rolling restart of two processes (ROLE=all, one DATA_DIR) under a steady load: each is stopped
 * with SIGTERM (it finishes its requests, hands its leases back) and started again, one at a time,
 * while clients keep creating products with an Idempotency-Key and reading them, sending each
 * request to a live process (a request that finds no listener goes to the other, with the same key,
 * as a proxy would). No 5xx is answered, no request is lost, every webhook event is delivered.
 */
const ENV = { EVENTSTORE_URL: '', MONGO_URL: '', SCHEDULER: 'off', RATE_LIMIT_MAX: '0', LEASE_TTL_MS: '3000', LEASE_RENEW_MS: '500', WEBHOOK_POLL_MS: '50' };

test('rolling restart under load: no 5xx, every write kept and read back, every webhook event delivered', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rolling-restart-'));
  const r = await new WebhookReceiver().up();
  const procs: (ChildService | null)[] = [await startChild(null, dataDir, ENV), null];
  try {
    const key = procs[0]!.testKey!;
    const auth = { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}`, 'content-type': 'application/json' };
    const endpoint = (await (await fetch(`${procs[0]!.url}/v1/webhook_endpoints`, { method: 'POST', headers: auth, body: JSON.stringify({ url: r.url, enabled_events: ['product.*'] }) })).json()) as { secret: string };
    r.secrets = [endpoint.secret];
    procs[1] = await startChild(null, dataDir, ENV);

    const statuses = new Map<number, number>();
    const kept = new Map<string, string>(); // Idempotency-Key → product id
    let stop = false;
    /** Sends to a live process; a connection refused or reset goes to the other (same key), as a proxy does. */
    const send = sendToLive(() => procs);
    const client = async (c: number) => {
      for (let i = 0; !stop; i++) {
        const idem = `rolling-${c}-${i}`;
        const res = await send('/v1/products', { method: 'POST', headers: { ...auth, 'Idempotency-Key': idem }, body: JSON.stringify({ name: `Rolling ${c}-${i}` }) });
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status !== 200) continue;
        const { id } = (await res.json()) as { id: string };
        kept.set(idem, id);
        const read = await send(`/v1/products/${id}`, { headers: auth });
        statuses.set(read.status, (statuses.get(read.status) ?? 0) + 1);
        await new Promise((res) => setTimeout(res, 25)); // a steady load, not a flood
      }
    };
    const load = Promise.all(Array.from({ length: 4 }, (_, c) => client(c)));
    await new Promise((res) => setTimeout(res, 1500));
    for (const i of [0, 1]) {
      // Stopped with SIGTERM (its requests finished, its leases handed back), then started again.
      const old = procs[i]!;
      procs[i] = null;
      await old.kill('SIGTERM');
      await new Promise((res) => setTimeout(res, 500));
      procs[i] = await startChild(null, dataDir, ENV);
      await new Promise((res) => setTimeout(res, 1500));
    }
    stop = true;
    await load;
    expect(Object.fromEntries(statuses)).toEqual({ 200: expect.any(Number) });
    expect(kept.size).toBeGreaterThan(20);
    // Every product answered is in the stores, read through either process.
    for (const id of kept.values()) {
      for (const p of procs) expect((await fetch(`${p!.url}/v1/products/${id}`, { headers: auth })).status).toBe(200);
    }
    // Every product.created event reaches the receiver.
    const delivered = () => new Set(r.received.map((x) => x.body?.data?.object?.id as string));
    await r.until(() => {
      const seen = delivered();
      return [...kept.values()].every((id) => seen.has(id));
    }, 60_000, 'every product\'s webhook');
    report(`[rolling restart] ${kept.size} products created under load across two restarts, statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
  } finally {
    for (const p of procs) await p?.kill('SIGKILL');
    await r.down();
  }
}, 240_000);
