import { Logger } from '@nestjs/common';
import { SqliteReadStore } from '#read-store/sqlite-read-store.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { MongoStandIn, mongoReadStoreOn } from '#test/support/mongo-stand-in.js';
import { FencedError, LEASES_COLLECTION } from '#read-store/read-store.port.js';
import { type HeldLease, LeaseManager, type LeaseView, planLeases, type UnitLease, type WorkerBeat, webhookPartition, WEBHOOK_PARTITIONS } from './leases.js';

const T0 = Date.parse('2026-11-23T10:00:00.000Z');
const TTL = 10_000;
const iso = (ms: number) => new Date(ms).toISOString();
const UNITS = ['idempotency-prune', 'invoicing', 'mail', 'projections', 'scheduler', ...Array.from({ length: 8 }, (_, p) => `webhooks/${p}`)];

const lease = (id: string, holder: string | null, epoch: number, expiresAt: number): UnitLease => ({ id, kind: 'unit', holder, epoch, expires_at: iso(expiresAt), since: iso(T0) });
const beat = (holder: string, expiresAt: number, can = UNITS): WorkerBeat => ({ id: `worker:${holder}`, kind: 'worker', holder, expires_at: iso(expiresAt), since: iso(T0), can });

function view(partial: Partial<LeaseView>): LeaseView {
  return { me: 'wrk_a', now: T0, ttlMs: TTL, units: UNITS, running: new Map(), leases: new Map(), workers: [], ...partial };
}

beforeAll(() => Logger.overrideLogger(false));
afterAll(() => Logger.overrideLogger(['log', 'error', 'warn']));

describe('planLeases (pure)', () => {
  it('a worker alone takes every unit at once', () => {
    const plan = planLeases(view({}));
    expect(plan.take).toEqual([...UNITS].sort());
    expect(plan).toMatchObject({ share: 13, live: 1, release: [], lost: [], renew: [] });
  });

  it('two workers starting together each take up to their share, ceil(13 / 2) = 7', () => {
    const plan = planLeases(view({ workers: [beat('wrk_a', T0 + TTL), beat('wrk_b', T0 + TTL)] }));
    expect(plan.share).toBe(7);
    expect(plan.take).toHaveLength(7);
  });

  it('a worker above its share hands back the excess while another live worker is under it, the projections last', () => {
    const leases = new Map(UNITS.map((u) => [u, lease(u, 'wrk_a', 1, T0 + TTL)]));
    const running = new Map(UNITS.map((u) => [u, 1]));
    const plan = planLeases(view({ running, leases, workers: [beat('wrk_a', T0 + TTL), beat('wrk_b', T0 + TTL)] }));
    expect(plan.release).toHaveLength(6);
    expect(plan.release).not.toContain('projections');
    expect(plan.renew).toHaveLength(7);
    expect(plan.renew).toContain('projections');
    expect(plan.take).toEqual([]);
    // The other worker has nothing and takes the handed-back units at its next tick, up to its share.
    const released = new Map([...leases].map(([u, l]) => [u, plan.release.includes(u) ? { ...l, holder: null, expires_at: iso(T0) } : l]));
    const theirs = planLeases(view({ me: 'wrk_b', leases: released, now: T0 + 2000, workers: [beat('wrk_a', T0 + TTL), beat('wrk_b', T0 + TTL)] }));
    expect(theirs.take.sort()).toEqual([...plan.release].sort());
  });

  it('balanced: nobody hands back, nobody takes (7 and 6)', () => {
    const leases = new Map(UNITS.map((u, i) => [u, lease(u, i < 7 ? 'wrk_a' : 'wrk_b', 1, T0 + TTL)]));
    const workers = [beat('wrk_a', T0 + TTL), beat('wrk_b', T0 + TTL)];
    const a = planLeases(view({ leases, workers, running: new Map(UNITS.slice(0, 7).map((u) => [u, 1])) }));
    const b = planLeases(view({ me: 'wrk_b', leases, workers, running: new Map(UNITS.slice(7).map((u) => [u, 1])) }));
    expect([a.release, a.take, b.release, b.take]).toEqual([[], [], [], []]);
  });

  it('a dead worker\'s units are taken once its leases expired, even beyond the share when nobody else is alive', () => {
    const leases = new Map(UNITS.map((u, i) => [u, lease(u, i < 7 ? 'wrk_a' : 'wrk_dead', 3, T0 + TTL)]));
    const running = new Map(UNITS.slice(0, 7).map((u) => [u, 3]));
    // Before expiry: nothing to take.
    expect(planLeases(view({ leases, running, workers: [beat('wrk_a', T0 + TTL), beat('wrk_dead', T0 + TTL)] })).take).toEqual([]);
    // After: the dead worker's heartbeat has lapsed too, so this one is alone and its share is everything.
    const later = planLeases(view({ now: T0 + TTL + 1, leases, running, workers: [beat('wrk_a', T0 + 2 * TTL), beat('wrk_dead', T0 + TTL)] }));
    expect(later.take.sort()).toEqual(UNITS.slice(7).sort());
    expect(later.renew).toHaveLength(7);
  });

  it('a unit stored under another holder or epoch than the one running here is lost', () => {
    const leases = new Map([['scheduler', lease('scheduler', 'wrk_b', 2, T0 + TTL)], ['mail', lease('mail', 'wrk_a', 1, T0 + TTL)]]);
    const plan = planLeases(view({ units: ['mail', 'scheduler'], leases, running: new Map([['scheduler', 1], ['mail', 1]]) }));
    expect(plan.lost).toEqual(['scheduler']);
    expect(plan.renew).toEqual(['mail']);
  });

  it('beyond its share a worker takes only a unit left untaken for a whole TTL, or one no other live worker can take', () => {
    const workers = [beat('wrk_a', T0 + TTL, ['mail', 'scheduler', 'invoicing']), beat('wrk_b', T0 + TTL, ['mail', 'invoicing'])];
    // share = ceil(3 / 2) = 2; this worker holds mail already.
    const leases = new Map([
      ['mail', lease('mail', 'wrk_a', 1, T0 + TTL)],
      ['invoicing', lease('invoicing', null, 1, T0 - 1000)],
      ['scheduler', lease('scheduler', null, 1, T0 - 1000)],
    ]);
    const plan = planLeases(view({ units: ['mail', 'scheduler', 'invoicing'], leases, workers, running: new Map([['mail', 1]]) }));
    // invoicing sorts first: taken within the share; scheduler only this worker can take: taken beyond it.
    expect(plan.take).toEqual(['invoicing', 'scheduler']);
    // With only mail and invoicing to its name, its share is ceil(2 / 2) = 1: invoicing waits for the other worker…
    const narrower = view({ units: ['mail', 'invoicing'], leases, workers, running: new Map([['mail', 1]]) });
    expect(planLeases(narrower).take).toEqual([]);
    // …unless nobody took it for a whole TTL.
    expect(planLeases({ ...narrower, now: T0 + TTL - 1000 }).take).toEqual(['invoicing']);
  });
});

describe('webhook partitions', () => {
  it('a stable hash of the endpoint id spreads endpoints over the eight partitions', () => {
    expect(webhookPartition('we_abc')).toBe(webhookPartition('we_abc'));
    const seen = new Set(Array.from({ length: 200 }, (_, i) => webhookPartition(`we_${i.toString(36)}xyz`)));
    expect(seen.size).toBe(WEBHOOK_PARTITIONS);
  });
});

// The same manager on both read-store adapters: SQLite, and MongoDB's adapter over the driver stand-in (test/support/mongo-stand-in.ts).
const STORES: [string, () => ReadStore][] = [
  ['SQLite', () => new SqliteReadStore(':memory:')],
  ['MongoDB (driver stand-in)', () => mongoReadStoreOn(new MongoStandIn())],
];

describe.each(STORES)('LeaseManager on one store, %s (a fake wall clock and monotonic clock)', (_, makeStore) => {
  let store: ReadStore;
  let wall = T0;
  let mono = 0;
  const clocks = { now: () => wall, monotonic: () => mono };
  const started: string[] = [];
  const stopped: string[] = [];
  const work = (name: string, held?: Map<string, HeldLease>) => ({
    start: async (l: HeldLease) => {
      started.push(`${name}:${l.unit}@${l.epoch}`);
      held?.set(l.unit, l);
    },
    stop: async () => void stopped.push(name),
  });

  beforeEach(async () => {
    store = makeStore();
    await store.ensureCollections([{ name: LEASES_COLLECTION, indexes: [{ fields: ['kind'] }] }]);
    wall = T0;
    mono = 0;
    started.length = 0;
    stopped.length = 0;
  });
  afterEach(() => store.close());

  it('takes its units at start, renews them, and a second worker gets its share when the first hands back the excess', async () => {
    const a = new LeaseManager(store, { ttlMs: TTL, renewMs: 60_000, ...clocks });
    const b = new LeaseManager(store, { ttlMs: TTL, renewMs: 60_000, ...clocks });
    for (const u of ['u1', 'u2', 'u3', 'u4']) {
      a.register(u, work('a'));
      b.register(u, work('b'));
    }
    await a.start();
    expect([...a.held().keys()].sort()).toEqual(['u1', 'u2', 'u3', 'u4']);
    await b.start(); // a holds everything: b takes nothing yet
    expect(b.held().size).toBe(0);
    wall += 2000;
    mono += 2000;
    await a.tickNow(); // a sees b alive and under its share: hands two back
    expect(a.held().size).toBe(2);
    await b.tickNow();
    expect(b.held().size).toBe(2);
    const status = await a.status();
    expect(status.units.filter((u) => u.holder === b.worker).map((u) => u.epoch)).toEqual([2, 2]);
    expect(status.workers.map((w) => w.units.length).sort()).toEqual([2, 2]);
    await a.stop();
    await b.stop();
  });

  it('a stopped worker hands its leases back at once: the other takes them at its next tick', async () => {
    const a = new LeaseManager(store, { ttlMs: TTL, renewMs: 60_000, ...clocks });
    const b = new LeaseManager(store, { ttlMs: TTL, renewMs: 60_000, ...clocks });
    a.register('u1', work('a'));
    b.register('u1', work('b'));
    await a.start();
    await b.start();
    await a.stop();
    expect(stopped).toEqual(['a']);
    await b.tickNow();
    expect([...b.held()]).toEqual([['u1', 2]]);
    await b.stop();
  });

  it('a frozen holder: invalid by its own clock before the lease expires, taken by the other after it, its fenced writes refused', async () => {
    const heldA = new Map<string, HeldLease>();
    const a = new LeaseManager(store, { ttlMs: TTL, renewMs: 60_000, ...clocks });
    const b = new LeaseManager(store, { ttlMs: TTL, renewMs: 60_000, ...clocks });
    a.register('u1', work('a', heldA));
    b.register('u1', work('b'));
    await store.ensureCollections([{ name: 'docs', indexes: [] }]);
    await a.start();
    await b.start();
    const lease = heldA.get('u1')!;
    expect(lease.valid()).toBe(true);
    await store.commit([{ collection: 'docs', id: 'x', doc: { id: 'x', by: 'a' } }], undefined, lease.fence);
    // a freezes (SIGSTOP): no renewals. Its own clock passes TTL − 1 s before the lease expires.
    mono += TTL - 1000;
    expect(lease.valid()).toBe(false);
    wall += TTL - 1000;
    await b.tickNow();
    expect(b.held().size).toBe(0); // not expired yet: not taken
    wall += 1000;
    await b.tickNow();
    expect([...b.held()]).toEqual([['u1', 2]]);
    // a resumes: a write with its old epoch is refused; its next tick stops the unit.
    await expect(store.commit([{ collection: 'docs', id: 'x', doc: { id: 'x', by: 'a late' } }], undefined, lease.fence)).rejects.toBeInstanceOf(FencedError);
    expect(await store.get('docs', 'x')).toEqual({ id: 'x', by: 'a' });
    await a.tickNow();
    expect(stopped).toContain('a');
    expect(a.held().size).toBe(0);
    const stored = await store.get<UnitLease>(LEASES_COLLECTION, 'u1');
    expect(stored).toMatchObject({ holder: b.worker, epoch: 2 });
    await a.stop();
    await b.stop();
  });

  it('a renewal refused (another took the lease) stops the unit at once', async () => {
    const a = new LeaseManager(store, { ttlMs: TTL, renewMs: 60_000, ...clocks });
    a.register('u1', work('a'));
    await a.start();
    // Someone else took it (an operator, a worker with a skewed clock): a's renewal fails.
    const current = (await store.get<UnitLease>(LEASES_COLLECTION, 'u1'))!;
    expect(await store.swap(LEASES_COLLECTION, 'u1', { holder: a.worker, epoch: 1 }, { ...current, holder: 'wrk_other', epoch: 2 })).toBe(true);
    await a.tickNow();
    expect(stopped).toEqual(['a']);
    expect(a.held().size).toBe(0);
    await a.stop();
  });
});
