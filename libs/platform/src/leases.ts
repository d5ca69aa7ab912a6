import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { hostname } from 'node:os';
import { type CollectionSpec, type Fence, LEASES_COLLECTION, type ReadStore } from '#read-store/read-store.port.js';
import { newId } from '#shared/ids.js';
import { isStoreUnavailable } from '#shared/store-unavailable.js';

/**
 * Work shared by the workers that are alive. Every piece of background work (a "unit": the
 * projection pipeline, the scheduler, mail, invoicing, idempotency pruning, each webhook partition)
 * is held by one worker at a time through a lease: a document of the `leases` read-store collection
 * `{ id: unit, kind: 'unit', holder, epoch, expires_at, since }`, changed only by compare-and-set
 * (ReadStore.swap) on its holder and epoch. Each worker also keeps a heartbeat document
 * `{ id: 'worker:<wrk_…>', kind: 'worker', holder, expires_at, since, can }`.
 *
 * Every RENEW_MS a worker (LeaseManager.tick):
 * - renews what it holds (swap on holder + epoch); a failed renewal means another took it: the unit
 *   is stopped at once;
 * - takes units whose lease expired or was handed back (epoch + 1) up to its fair share,
 *   ceil(units / live workers) — beyond its share only a unit left untaken for a whole TTL, or one no
 *   other live worker can take;
 * - hands back units above its share while another live worker that can take them holds fewer than
 *   its share (a joining worker gets some at the holder's next renewal).
 *
 * Takeover bound: a holder that dies stops renewing; its leases expire at most TTL after its last
 * renewal, and another worker takes them at its next tick: within TTL + RENEW_MS (12 s by default),
 * plus the unit's own start (the pipeline's catch-up from its checkpoint).
 *
 * Fencing: a holder stops acting once its own monotonic clock says the lease may have expired
 * (TTL − SAFETY after the renewal that was sent, so a process frozen by SIGSTOP and resumed stops
 * before it writes), and the writes that matter carry the lease's epoch (ReadStore.commit's
 * `fence`), refused once another epoch holds it. Wall clocks of the workers must agree within SAFETY
 * (1 s; one host for the embedded store, NTP otherwise).
 */

/** A unit's lease as stored. */
export interface UnitLease {
  id: string;
  kind: 'unit';
  holder: string | null;
  epoch: number;
  /** ISO instant (wall clock) after which another worker may take it. */
  expires_at: string;
  /** When the holder took it. */
  since: string;
  [field: string]: unknown;
}

/** A worker's heartbeat as stored. */
export interface WorkerBeat {
  id: string;
  kind: 'worker';
  holder: string;
  expires_at: string;
  since: string;
  /** The units it may take (its configuration: SCHEDULER=off and the like leave some out). */
  can: string[];
  host?: string;
  pid?: number;
  [field: string]: unknown;
}

export const LEASE_COLLECTIONS: CollectionSpec[] = [{ name: LEASES_COLLECTION, indexes: [{ fields: ['kind'] }] }];
export const workerDocId = (worker: string) => `worker:${worker}`;

/** The webhook deliveries' partitions: an endpoint's deliveries belong to `webhooks/<hash % 8>`. */
export const WEBHOOK_PARTITIONS = 8;
export const webhookUnit = (partition: number) => `webhooks/${partition}`;

/** A stable partition of an endpoint id (FNV-1a, 32 bits): the same in every process and release. */
export function webhookPartition(endpointId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < endpointId.length; i++) {
    hash ^= endpointId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % WEBHOOK_PARTITIONS;
}

/** What a worker sees at one tick: the pure input of planLeases. */
export interface LeaseView {
  me: string;
  /** Wall clock, ms. */
  now: number;
  ttlMs: number;
  /** The units this worker may take. */
  units: string[];
  /** The units this worker runs now (held and started). */
  running: Map<string, number>;
  leases: Map<string, UnitLease>;
  workers: WorkerBeat[];
}

export interface LeasePlan {
  /** Held and running: renew (swap on holder + epoch). */
  renew: string[];
  /** Running here but stored under another holder or epoch: stop at once. */
  lost: string[];
  /** Free (absent, handed back or expired): take (epoch + 1). */
  take: string[];
  /** Held above the fair share while another worker is under it: hand back (after stopping). */
  release: string[];
  share: number;
  live: number;
}

const expired = (lease: UnitLease, now: number) => lease.holder === null || Date.parse(lease.expires_at) <= now;

/**
 * Pure: what a worker does at one tick. `share` = ceil(units known to the live workers / live
 * workers). Projections are handed back last (moving them costs a catch-up).
 */
export function planLeases(view: LeaseView): LeasePlan {
  const { me, now, ttlMs } = view;
  const live = view.workers.filter((w) => w.holder !== me && Date.parse(w.expires_at) > now);
  const all = new Set(view.units);
  for (const w of live) for (const u of w.can ?? []) all.add(u);
  const share = Math.ceil(all.size / (live.length + 1));
  const renew: string[] = [];
  const lost: string[] = [];
  for (const [unit, epoch] of view.running) {
    const lease = view.leases.get(unit);
    if (lease && lease.holder === me && lease.epoch === epoch) renew.push(unit);
    else lost.push(unit);
  }
  const holds = (worker: string) => [...view.leases.values()].filter((l) => l.holder === worker && !expired(l, now)).length;
  let mine = renew.length;
  const free = view.units
    .filter((u) => !view.running.has(u))
    .filter((u) => {
      const lease = view.leases.get(u);
      return !lease || expired(lease, now) || (lease.holder === me && !view.running.has(u));
    })
    .sort();
  const take: string[] = [];
  for (const unit of free) {
    const lease = view.leases.get(unit);
    // Beyond the share: a unit nobody under its share took for a whole TTL, or one only this worker can take.
    const stale = lease !== undefined && Date.parse(lease.expires_at) <= now - ttlMs;
    const onlyMe = !live.some((w) => (w.can ?? []).includes(unit));
    if (mine < share || stale || onlyMe) {
      take.push(unit);
      mine += 1;
    }
  }
  const release: string[] = [];
  if (mine > share) {
    // Room the others under their share have for what this worker holds.
    let room = 0;
    for (const w of live) room += Math.max(0, share - holds(w.holder));
    const candidates = [...renew].sort((a, b) => (a === 'projections' ? 1 : b === 'projections' ? -1 : a < b ? 1 : -1));
    for (const unit of candidates) {
      if (mine <= share || room <= 0) break;
      if (!live.some((w) => (w.can ?? []).includes(unit) && holds(w.holder) < share)) continue;
      release.push(unit);
      mine -= 1;
      room -= 1;
    }
  }
  return { renew: renew.filter((u) => !release.includes(u)), lost, take, release, share, live: live.length + 1 };
}

/** A lease this worker holds, as the work it guards sees it. */
export interface HeldLease {
  readonly unit: string;
  readonly holder: string;
  readonly epoch: number;
  readonly since: string;
  /** The token its writes carry (ReadStore.commit's `fence`). */
  readonly fence: Fence;
  /** False once the lease is lost, handed back, or may have expired by this process's monotonic clock: stop acting. */
  valid(): boolean;
}

/** A unit of work a lease guards: started when taken, stopped (and its checkpoint written) before the lease goes. */
export interface LeasedWork {
  start(lease: HeldLease): Promise<void>;
  stop(): Promise<void>;
}

interface Running {
  lease: UnitLease;
  held: HeldLease;
  /** Monotonic ms until which the lease is surely ours (renewal sent + TTL − SAFETY). */
  validUntil: number;
  lost: boolean;
  started: Promise<void>;
  stopping: Promise<void> | null;
}

export interface LeaseOptions {
  ttlMs: number;
  renewMs: number;
  /** Wall clock (ms): the leases' expiry instants. */
  now?: () => number;
  /** Monotonic clock (ms): the holder's own view of its lease. */
  monotonic?: () => number;
  /** How long before the stored expiry the holder stops acting (clock skew, a slow write). Default 1 s (a fifth of a short TTL at most). */
  safetyMs?: number;
}

/** One unit's holder as `/health`, `projections status` and `/metrics` show it. */
export interface LeaseStatus {
  unit: string;
  holder: string | null;
  epoch: number;
  since: string;
  expires_at: string;
  /** Held by a live lease (not expired, not handed back). */
  held: boolean;
  /** Held by this process. */
  mine: boolean;
}

export interface WorkerStatus {
  worker: string;
  host: string | null;
  pid: number | null;
  since: string;
  expires_at: string;
  live: boolean;
  units: string[];
  /** The units it may take (its heartbeat's `can`). */
  can: string[];
}

/**
 * The leases of one worker process (ROLE=all or worker). Units register (`register`) while the app
 * is built; `start` takes its share at once (the first tick's units are started before it returns:
 * a single process starts with everything, without waiting a renewal period), then ticks every
 * RENEW_MS; `stop` (SIGTERM, app.close()) stops every unit and hands its leases back at once.
 */
export class LeaseManager {
  readonly worker = newId('wrk');
  private readonly logger = new Logger('leases');
  private readonly units = new Map<string, LeasedWork>();
  private readonly running = new Map<string, Running>();
  private readonly now: () => number;
  private readonly monotonic: () => number;
  private readonly safetyMs: number;
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  private stopped = true;
  private readonly since = new Date().toISOString();
  /** Ticks done (tests wait on it). */
  ticks = 0;

  constructor(
    private readonly store: ReadStore,
    readonly options: LeaseOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.monotonic = options.monotonic ?? (() => performance.now());
    this.safetyMs = options.safetyMs ?? Math.min(1000, Math.floor(options.ttlMs / 5));
  }

  /** A unit this process may take. Before `start`. */
  register(unit: string, work: LeasedWork): void {
    this.units.set(unit, work);
  }

  registered(): string[] {
    return [...this.units.keys()].sort();
  }

  /** The units this process runs now, with their epochs. */
  held(): Map<string, number> {
    return new Map([...this.running].map(([unit, r]) => [unit, r.lease.epoch]));
  }

  holds(unit: string): boolean {
    const r = this.running.get(unit);
    return r !== undefined && r.held.valid();
  }

  /** Takes this worker's share now and starts those units, then renews every RENEW_MS. Nothing to do without units. */
  async start(): Promise<void> {
    if (!this.stopped || this.units.size === 0) return;
    this.stopped = false;
    await this.store.ensureCollections(LEASE_COLLECTIONS);
    const starts = await this.runTick();
    this.schedule();
    await Promise.all(starts);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.runTick().then(() => this.schedule());
    }, this.options.renewMs);
    this.timer.unref();
  }

  /** One tick, never two at once; resolves with the starts it launched (not awaited by the loop). */
  private runTick(): Promise<Promise<void>[]> {
    const run = (async () => {
      await this.ticking;
      try {
        return await this.tick();
      } catch (error) {
        // A store that cannot take writes now (read-only, full, unreachable) is a warning: the units
        // go on until their leases may lapse by this process's clock, and are stopped then.
        if (isStoreUnavailable(error)) this.logger.warn({ msg: 'lease renewal: the read store is unavailable; retrying at the next tick', err: String((error as Error)?.message ?? error) });
        else this.logger.error({ msg: 'lease renewal failed; retrying at the next tick', err: String((error as Error)?.stack ?? error) });
        return [];
      }
    })();
    this.ticking = run.then(() => undefined);
    return run;
  }

  /** Now, for tests: one tick and the starts it launched. */
  async tickNow(): Promise<void> {
    await Promise.all(await this.runTick());
  }

  private async tick(): Promise<Promise<void>[]> {
    if (this.stopped) return [];
    this.ticks += 1;
    const now = this.now();
    // The holder's own clock first: a lease that may have expired (a frozen or starved process) is stopped before anything else.
    for (const [unit, r] of this.running) if (!r.held.valid()) await this.drop(unit, 'its lease may have expired by this process\'s clock');
    await this.beat(now);
    const docs = await this.store.find<UnitLease | WorkerBeat>(LEASES_COLLECTION, { orderBy: { field: 'id', direction: 'asc' }, limit: 10_000 });
    const leases = new Map<string, UnitLease>();
    const workers: WorkerBeat[] = [];
    for (const d of docs) {
      if (d.kind === 'unit') leases.set(d.id, d as UnitLease);
      else if (d.kind === 'worker') workers.push(d as WorkerBeat);
    }
    const plan = planLeases({ me: this.worker, now, ttlMs: this.options.ttlMs, units: this.registered(), running: this.held(), leases, workers });
    for (const unit of plan.lost) await this.drop(unit, 'another worker holds it');
    for (const unit of plan.renew) await this.renew(unit);
    for (const unit of plan.release) await this.handBack(unit);
    const starts: Promise<void>[] = [];
    for (const unit of plan.take) {
      const started = await this.take(unit, leases.get(unit) ?? null);
      if (started) starts.push(started);
    }
    await this.forgetDeadWorkers(workers, now);
    return starts;
  }

  private async beat(now: number): Promise<void> {
    const beat: WorkerBeat = {
      id: workerDocId(this.worker),
      kind: 'worker',
      holder: this.worker,
      expires_at: new Date(now + this.options.ttlMs).toISOString(),
      since: this.since,
      can: this.registered(),
      host: hostname(),
      pid: process.pid,
    };
    await this.store.commit([{ collection: LEASES_COLLECTION, id: beat.id, doc: beat }]);
  }

  /** Heartbeats of workers gone for ten TTLs are removed (by whoever sees them first). */
  private async forgetDeadWorkers(workers: WorkerBeat[], now: number): Promise<void> {
    const gone = workers.filter((w) => w.holder !== this.worker && Date.parse(w.expires_at) < now - 10 * this.options.ttlMs);
    if (gone.length) await this.store.commit(gone.map((w) => ({ collection: LEASES_COLLECTION, id: w.id, doc: null })));
  }

  private leaseDoc(unit: string, epoch: number, since: string, now: number): UnitLease {
    return { id: unit, kind: 'unit', holder: this.worker, epoch, expires_at: new Date(now + this.options.ttlMs).toISOString(), since };
  }

  private async renew(unit: string): Promise<void> {
    const r = this.running.get(unit);
    if (!r) return;
    const sent = this.monotonic();
    const next = this.leaseDoc(unit, r.lease.epoch, r.lease.since, this.now());
    const ok = await this.store.swap(LEASES_COLLECTION, unit, { holder: this.worker, epoch: r.lease.epoch }, next);
    if (!ok) return this.drop(unit, 'its renewal was refused (another worker holds it)');
    r.lease = next;
    r.validUntil = sent + this.options.ttlMs - this.safetyMs;
  }

  private async take(unit: string, current: UnitLease | null): Promise<Promise<void> | null> {
    const work = this.units.get(unit);
    if (!work) return null;
    const sent = this.monotonic();
    const now = this.now();
    const next = this.leaseDoc(unit, (current?.epoch ?? 0) + 1, new Date(now).toISOString(), now);
    const ok = await this.store.swap(LEASES_COLLECTION, unit, current ? { holder: current.holder, epoch: current.epoch } : null, next);
    if (!ok) return null; // another worker was quicker
    const r: Running = {
      lease: next,
      validUntil: sent + this.options.ttlMs - this.safetyMs,
      lost: false,
      started: Promise.resolve(),
      stopping: null,
      held: undefined as unknown as HeldLease,
    };
    r.held = {
      unit,
      holder: this.worker,
      epoch: next.epoch,
      since: next.since,
      fence: { unit, holder: this.worker, epoch: next.epoch },
      valid: () => !r.lost && this.monotonic() < r.validUntil,
    };
    this.running.set(unit, r);
    this.logger.log({ msg: 'took a lease', unit, worker: this.worker, epoch: next.epoch, from: current?.holder ?? null });
    r.started = work.start(r.held).catch(async (error) => {
      this.logger.error({ msg: 'a leased unit could not start; handing it back', unit, err: String((error as Error)?.stack ?? error) });
      if (this.running.get(unit) === r) await this.handBack(unit).catch(() => undefined);
    });
    return r.started;
  }

  /** Lost (or may be): stop the work at once; the lease is not ours to write any more. */
  private async drop(unit: string, why: string): Promise<void> {
    const r = this.running.get(unit);
    if (!r) return;
    r.lost = true;
    this.running.delete(unit);
    this.logger.warn({ msg: `stopped ${unit}: ${why}`, unit, worker: this.worker, epoch: r.lease.epoch });
    await this.stopWork(unit, r);
    // Still stored as ours (this process was only slow)? Hand it back so that anyone may take it at once.
    await this.store.swap(LEASES_COLLECTION, unit, { holder: this.worker, epoch: r.lease.epoch }, { ...r.lease, holder: null, expires_at: new Date(this.now()).toISOString() }).catch(() => false);
  }

  private async stopWork(unit: string, r: Running): Promise<void> {
    r.stopping ??= (async () => {
      await r.started.catch(() => undefined);
      await this.units
        .get(unit)
        ?.stop()
        .catch((error) => this.logger.error({ msg: 'a leased unit failed to stop', unit, err: String(error) }));
    })();
    await r.stopping;
  }

  /** Stops the unit (its checkpoint written), then hands the lease back: expires now, no holder, same epoch. */
  private async handBack(unit: string): Promise<void> {
    const r = this.running.get(unit);
    if (!r) return;
    r.lost = true;
    this.running.delete(unit);
    await this.stopWork(unit, r);
    const back: UnitLease = { ...r.lease, holder: null, expires_at: new Date(this.now()).toISOString() };
    await this.store.swap(LEASES_COLLECTION, unit, { holder: this.worker, epoch: r.lease.epoch }, back);
    this.logger.log({ msg: 'handed a lease back', unit, worker: this.worker, epoch: r.lease.epoch });
  }

  /** SIGTERM / app.close(): every unit stopped (checkpoints written), every lease handed back at once, the heartbeat removed. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.ticking;
    await Promise.all([...this.running.keys()].map((unit) => this.handBack(unit).catch((error) => this.logger.error({ msg: 'could not hand a lease back', unit, err: String(error) }))));
    await this.store.commit([{ collection: LEASES_COLLECTION, id: workerDocId(this.worker), doc: null }]).catch(() => undefined);
  }

  /** Every unit's lease and every worker's heartbeat, as stored (what /health and `projections status` show). */
  async status(): Promise<{ worker: string | null; units: LeaseStatus[]; workers: WorkerStatus[] }> {
    const now = this.now();
    const docs = await readLeaseDocs(this.store);
    const units = docs.leases.map((l) => ({
      unit: l.id,
      holder: l.holder,
      epoch: l.epoch,
      since: l.since,
      expires_at: l.expires_at,
      held: !expired(l, now),
      mine: l.holder === this.worker && this.running.has(l.id),
    }));
    const workers = docs.workers.map((w) => ({
      worker: w.holder,
      host: w.host ?? null,
      pid: w.pid ?? null,
      since: w.since,
      expires_at: w.expires_at,
      live: Date.parse(w.expires_at) > now,
      units: units.filter((u) => u.holder === w.holder && u.held).map((u) => u.unit),
      can: w.can ?? [],
    }));
    return { worker: this.units.size ? this.worker : null, units, workers };
  }
}

/** The stored leases and heartbeats (ensures the collection: a ROLE=api process or the CLI may read first). */
export async function readLeaseDocs(store: ReadStore): Promise<{ leases: UnitLease[]; workers: WorkerBeat[] }> {
  await store.ensureCollections(LEASE_COLLECTIONS);
  const docs = await store.find<UnitLease | WorkerBeat>(LEASES_COLLECTION, { orderBy: { field: 'id', direction: 'asc' }, limit: 10_000 });
  return { leases: docs.filter((d): d is UnitLease => d.kind === 'unit'), workers: docs.filter((d): d is WorkerBeat => d.kind === 'worker') };
}

/**
 * Starts the process's leases once every module is up (provided by the root module, whose
 * bootstrap hook runs last: each unit's own initialisation has run) and, on shutdown (SIGTERM,
 * app.close()), once the HTTP server has drained the requests in flight (they may wait for the
 * projections), stops every unit (its checkpoint written) and hands its leases back at once, before
 * the stores close (the root module's shutdown hook runs first, the platform's, which closes them, last).
 */
@Injectable()
export class LeaseLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(private readonly leases: LeaseManager) {}

  onApplicationBootstrap(): Promise<void> {
    return this.leases.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.leases.stop();
  }
}
