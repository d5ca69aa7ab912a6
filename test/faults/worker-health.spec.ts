import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteReadStore } from '#read-store/sqlite-read-store.js';
import { LEASES_COLLECTION } from '#read-store/read-store.port.js';
import { type ChildService, startChild, until } from '../support/child-service.js';

/**
 * A ROLE=worker process serves no API but answers its health on HEALTH_PORT (startChild sets it to the
 * child's port): `/health` with the leases it holds, `/health/ready` 200 while it holds its share, and
 * 503 once it has held nothing it should for longer than TTL + one renewal (here: another "worker"
 * whose heartbeat and leases were written straight into the read store holds every unit and never
 * hands any back). Every other path is 404.
 */
const TTL_MS = 1000;
const RENEW_MS = 250;
const ENV = { EVENTSTORE_URL: '', MONGO_URL: '', ROLE: 'worker', LEASE_TTL_MS: String(TTL_MS), LEASE_RENEW_MS: String(RENEW_MS) };

interface Health { status: string; leases: { worker: string; held_here: string[]; units: { unit: string; holder: string | null }[] } }
interface Ready { status: string; leases?: { holds: number; share: number; problems: string[] } }


test('a worker answers /health and /health/ready on HEALTH_PORT (503 when it holds nothing it should), and nothing else', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'worker-health-'));
  let worker: ChildService | null = await startChild(null, dataDir, ENV);
  const ready = async (s: ChildService) => {
    const res = await fetch(`${s.url}/health/ready`);
    return { code: res.status, body: (await res.json()) as Ready };
  };
  let store: SqliteReadStore | null = null;
  try {
    const health = (await (await fetch(`${worker.url}/health`)).json()) as Health;
    expect(health.status).toBe('ok');
    // Alone, it holds every unit it may take: the projections, the scheduler, the webhook partitions…
    expect(health.leases.held_here).toEqual(expect.arrayContaining(['projections', 'scheduler', 'webhooks/0', 'webhooks/7']));
    const units = health.leases.held_here;
    expect((await ready(worker)).code).toBe(200);
    expect((await ready(worker)).body.leases).toMatchObject({ holds: units.length, share: units.length, problems: [] });

    // No API here: the routes of the API and the pages are 404 in the API's error shape.
    const products = await fetch(`${worker.url}/v1/products`, { headers: { authorization: 'Bearer sk_test_x' } });
    expect(products.status).toBe(404);
    expect(await products.json()).toMatchObject({ error: { code: 'resource_missing' } });
    expect((await fetch(`${worker.url}/dashboard`)).status).toBe(404);
    expect((await fetch(`${worker.url}/metrics`)).status).toBe(404);

    // Stopped (its leases handed back), then another "worker" holds every unit and never hands any back.
    await worker.kill('SIGTERM');
    worker = null;
    store = new SqliteReadStore(join(dataDir, 'read-models.sqlite'));
    const far = new Date(Date.now() + 3_600_000).toISOString();
    const now = new Date().toISOString();
    await store.commit([
      { collection: LEASES_COLLECTION, id: 'worker:wrk_greedy', doc: { id: 'worker:wrk_greedy', kind: 'worker', holder: 'wrk_greedy', expires_at: far, since: now, can: units } },
      ...units.map((unit) => ({ collection: LEASES_COLLECTION, id: unit, doc: { id: unit, kind: 'unit', holder: 'wrk_greedy', epoch: 99, expires_at: far, since: now } })),
    ]);
    worker = await startChild(null, dataDir, ENV);
    const w = worker;
    // At first under its share is only a rebalancing under way; after TTL + RENEW it is a fault.
    const starved = await until('the starved worker to be unready', () => ready(w), (r) => r.code === 503, 15_000);
    expect(starved.body.leases).toMatchObject({ holds: 0, share: Math.ceil(units.length / 2) });
    expect(starved.body.leases!.problems.join(' ')).toMatch(/under its share/);
    // Its liveness stays 200: it is alive, only not doing its part.
    expect((await fetch(`${w.url}/health`)).status).toBe(200);

    // The greedy worker dies (its heartbeat and leases expire): the worker takes everything and is ready again.
    const past = new Date(Date.now() - 1).toISOString();
    await store.commit([
      { collection: LEASES_COLLECTION, id: 'worker:wrk_greedy', doc: null },
      ...units.map((unit) => ({ collection: LEASES_COLLECTION, id: unit, doc: { id: unit, kind: 'unit', holder: 'wrk_greedy', epoch: 99, expires_at: past, since: now } })),
    ]);
    const back = await until('the worker to take every unit over', () => ready(w), (r) => r.body.leases?.holds === units.length, 15_000);
    expect(back).toMatchObject({ code: 200, body: { status: 'ready', leases: { problems: [] } } });
  } finally {
    await store?.close();
    await worker?.kill('SIGKILL');
  }
}, 60_000);
