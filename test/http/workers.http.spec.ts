import { FencedError, type ReadStore } from '#read-store/read-store.port.js';
import { READ_STORE } from '#platform/tokens.js';
import { LeaseManager } from '#platform/leases.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import { runCli } from '#cli/cli.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Several workers on one DATA_DIR (two service instances, ROLE=all, as two worker processes on one
 * pair of stores): the background work is split between them by leases (libs/platform/src/leases.ts),
 * read-your-writes holds on the one that does not project, and when one closes (what SIGTERM does)
 * the other takes its units at its next renewal; a write under the former epoch is refused.
 */
const RENEW_MS = 300;
const TTL_MS = 1500;
const env = { LEASE_RENEW_MS: String(RENEW_MS), LEASE_TTL_MS: String(TTL_MS), INVOICING_FOLLOWER: 'on', WEBHOOK_POLL_MS: '200' };
const ALL_UNITS = ['idempotency-prune', 'invoicing', 'mail', 'projections', 'scheduler', ...Array.from({ length: 8 }, (_, p) => `webhooks/${p}`)];

interface Health {
  leases: { worker: string | null; held_here: string[]; units: { unit: string; holder: string | null; epoch: number; since: string | null }[]; workers: { worker: string; units: string[] }[] };
}

let a: TestApp;
let b: TestApp | null = null;
let key: string;

const health = async (app: TestApp) => (await app.http().get('/health')).body as Health;
async function until<T>(what: string, probe: () => Promise<T>, ok: (value: T) => boolean, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  let last = await probe();
  while (!ok(last)) {
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 50));
    last = await probe();
  }
  return last;
}

beforeAll(async () => {
  a = await startTestApp({ scheduler: true, webhooks: true, env, embedded: true });
  key = (await a.account()).test_key;
});
let aClosed = false;
afterAll(async () => {
  await b?.close();
  if (!aClosed) await a.close();
});

test('a worker alone takes every unit at start, without waiting a renewal', async () => {
  const h = await health(a);
  expect(h.leases.held_here.sort()).toEqual([...ALL_UNITS].sort());
  expect(h.leases.units.every((u) => u.holder === h.leases.worker && u.since !== null)).toBe(true);
  expect(h.leases.worker).toMatch(/^wrk_/);
});

test('a second worker on the same stores gets its share at the first one\'s next renewal; reads its writes without projecting; closing one hands its units to the other', async () => {
  b = await startTestApp({ dataDir: a.dataDir, scheduler: true, webhooks: true, env, embedded: true });
  const workerA = (await health(a)).leases.worker!;
  const workerB = (await health(b)).leases.worker!;
  // Split 7 / 6 (13 units, two live workers: a share of ceil(13 / 2) = 7), within a few renewals.
  const split = await until('the units split between the workers', () => health(b!), (h) => h.leases.held_here.length === 6);
  expect((await health(a)).leases.held_here).toHaveLength(7);
  // Both see the same: every unit held, by one of the two.
  expect(new Set(split.leases.units.map((u) => u.holder))).toEqual(new Set([workerA, workerB]));
  expect(split.leases.workers.map((w) => w.units.length).sort()).toEqual([6, 7]);
  // Projections are handed back last: a kept them; b does not project, and still reads its own writes.
  expect(a.app.get(LeaseManager).holds('projections')).toBe(true);
  expect(b.app.get(ProjectionEngine).isFollowing).toBe(false);
  const created = await b.as(key).post('/v1/products', { name: 'Written where nothing projects' });
  expect(created.status).toBe(200);
  expect((await b.as(key).get(`/v1/products/${created.body.id}`)).body.name).toBe('Written where nothing projects');
  const metrics = (await b.http().get('/metrics')).text;
  expect(metrics).toContain(`billing_lease_held{unit="projections",worker="${workerA}"} 1`);
  // `npm run cli -- projections status`: each unit's holder since when, and the workers alive.
  const lines: string[] = [];
  expect(await runCli(['projections', 'status'], { out: (l) => lines.push(l) }, { DATA_DIR: a.dataDir })).toBe(0);
  expect(lines.find((l) => l.trim().startsWith('projections '))).toMatch(new RegExp(`^  projections +${workerA} since \\d{4}-\\d\\d-\\d\\dT.* \\(epoch \\d+, until `));
  expect(lines).toContain('workers alive: 2');

  // The projections' lease as a held it: its epoch, for the stale write below.
  const store = b.app.get<ReadStore>(READ_STORE);
  const before = split.leases.units.find((u) => u.unit === 'projections')!;
  // a closes (what SIGTERM does): its units stop and its leases are handed back at once;
  // b takes them at its next renewal, far sooner than a lease's expiry.
  const closing = Date.now();
  await a.close();
  aClosed = true;
  const taken = await until('b holds every unit', () => health(b!), (h) => h.leases.held_here.length === ALL_UNITS.length, 4 * RENEW_MS + 2000);
  expect(Date.now() - closing).toBeLessThan(TTL_MS + 2000);
  const after = taken.leases.units.find((u) => u.unit === 'projections')!;
  expect(after).toMatchObject({ holder: workerB, epoch: before.epoch + 1 });
  expect(b.app.get(ProjectionEngine).isFollowing).toBe(true);

  // A commit of the pipeline under a's epoch (a frozen a resuming) is refused; the checkpoint stays.
  const checkpoint = await store.getCheckpoint('products');
  await expect(store.commit([], { name: 'products', position: 'f'.repeat(41) }, { unit: 'projections', holder: workerA, epoch: before.epoch })).rejects.toBeInstanceOf(FencedError);
  expect(await store.getCheckpoint('products')).toBe(checkpoint);
  // b, the holder now, projects: a write is read at once.
  const next = await b.as(key).post(`/v1/products/${created.body.id}/update`, { name: 'Projected by b' });
  expect(next.body.name).toBe('Projected by b');
}, 60_000);
