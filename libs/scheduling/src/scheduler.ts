import { Inject, Injectable, Logger } from '@nestjs/common';
import { laterPosition } from '#event-store/positions.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import type { CollectionDoc } from '#collections/read-models/collection.read-model.js';
import type { SubscriptionDoc } from '#subscriptions/read-models/subscription.read-model.js';
import { NO_DEADLINE } from '#shared/deadlines.js';
import type { CommandContext } from '#platform/command-context.js';
import { EVENT_STORE, READ_STORE } from '#platform/tokens.js';
import type { EventStore } from '#event-store/event-store.port.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { DeadlineActions } from './deadline-actions.js';
import type { DeadlineDoc, DeadlineSource } from './deadline-source.js';

/** Which deadlines a run covers: real time (`clock: null`) or one test clock's objects. */
export interface DeadlineScope {
  clock: string | null;
  /**
   * A test clock's `frozen_time` when the advance began: a deadline that became due while the clock
   * stood still (e.g. the renewal of an unpaid subscription paid since, by a request at that time)
   * runs at that time, never in the clock's past — as the live scheduler would at its next poll.
   * Every other deadline of the advance runs at its own `_due_at` (they are all after `from`: an
   * advance leaves nothing due behind it).
   */
  from?: Date;
}

export interface RunResult {
  /** Deadlines acted on. */
  ran: number;
  /** Position of the last event written, for read-your-writes. */
  position: string | null;
}

interface Due {
  source: DeadlineSource;
  doc: DeadlineDoc;
}

/** Where a real-time pass stands in one source's deadline index: after this (`_due_at`, id), or at its end. */
type Cursor = { value: string; id: string } | 'done' | undefined;

/**
 * Turns deadlines into commands. Deadlines live in the read models (`_clock`, `_due_at`, `_due_kind`,
 * derived from events by the projectors), so they survive restarts and a missed one is simply due.
 * Real time runs due deadlines in batches (`concurrency` at once); a test clock runs them one at a
 * time in time order at each deadline's own time, so its outcome is deterministic. After each batch
 * the scheduler waits for the projections, so the next read sees what the batch changed.
 */
@Injectable()
export class Scheduler {
  private readonly logger = new Logger('scheduler');
  /** Deadlines that decided nothing (a race lost, a condition not met): not retried before `until`. */
  private readonly idle = new Map<string, number>();
  /** Where deadlines live and what runs them: subscriptions and collections, plus what other contexts register. */
  private readonly sources: DeadlineSource[] = [];
  /**
   * Deadlines run at once in real time: the cap on the work a run holds in memory (each renewal in
   * flight holds its states, events and documents until its three commits return). 128 renews ~15 %
   * faster than 32 on 2 cores; 64 used a little less cpu a renewal but was slower in wall time under
   * load (5,000 renewals, A/B in the same minutes, load 5–6: 18.0/12.5 s at 128, 19.2/14.4 s at 64),
   * and what the process peaks at is bounded by the heap policy (heap-policy.ts), not by this.
   */
  concurrency = 128;
  batchSize = 1024;

  constructor(
    @Inject(READ_STORE) private readonly store: ReadStore,
    @Inject(EVENT_STORE) private readonly events: EventStore,
    private readonly projections: ProjectionEngine,
    actions: DeadlineActions,
  ) {
    this.register({ name: 'subscription', collection: 'subscriptions', run: (ctx, doc) => actions.subscription(ctx, doc as SubscriptionDoc) });
    this.register({ name: 'collection', collection: 'collections', run: (ctx, doc) => actions.collection(ctx, doc as CollectionDoc) });
  }

  /**
   * Adds a kind of deadline: documents of `source.collection` carrying the deadline fields
   * (libs/shared/src/deadlines.ts) are run by `source.run` when due, like the built-in ones. A context
   * registers its source once, when its module initialises.
   */
  register(source: DeadlineSource): void {
    if (this.sources.some((s) => s.name === source.name)) return;
    this.sources.push(source);
  }

  /** The registered kinds of deadline (the scheduler backlog metric counts each). */
  get deadlineSources(): ReadonlyArray<Pick<DeadlineSource, 'name' | 'collection'>> {
    return this.sources;
  }

  /**
   * Runs every deadline of `scope` due at or before `until`. Real time: at `until` (the poll's now),
   * streamed in pages (see `runRealTime`). A test clock: one at a time in (`_due_at`, id) order, each
   * at its own `_due_at` — never earlier than the time the run has reached (a deadline made due in
   * the past by an earlier one runs when it became due) nor than `scope.from` — so the outcome
   * depends neither on how the clock is stepped nor on timing. A clock's deadline that fails stops
   * the run (the advance answers the error and can be resumed): it is never skipped and run later at
   * another time.
   */
  async runDue(scope: DeadlineScope, until: Date): Promise<RunResult> {
    this.forgetOldRests(until.getTime());
    if (!scope.clock) return this.runRealTime(until);
    const limit = until.toISOString();
    /** Deadlines of this run that decided nothing: not asked for again in this run (their document does not change). */
    const stuck = new Set<string>();
    let reached = scope.from?.getTime() ?? -Infinity;
    let ran = 0;
    let position: string | null = null;
    // The first query sees everything written before the advance, even by a request that failed
    // after its append (nobody waited for its projection then): its deadline is this run's to find.
    const head = await this.events.headPosition();
    if (head) await this.projected(head);
    for (;;) {
      const due = await this.due(scope.clock, limit, 1, (d) => stuck.has(key(d)), true);
      if (due.length === 0) return { ran, position };
      const d = due[0];
      reached = Math.max(reached, Date.parse(d.doc._due_at));
      const p = await this.run(d, new Date(reached), true);
      if (p === null) stuck.add(key(d));
      ran += 1;
      // Wait for everything the deadline appended, not only what the action reported: a follow-up written
      // before a refusal (a renewal's collection) must be seen by the next query, or its deadline would
      // be missed by this run and picked up by a later one at another time.
      position = laterPosition(laterPosition(position, p), await this.events.headPosition());
      // A wait that times out (a projection backlog) is waited again: the next query must see this deadline's writes.
      await this.projected(position);
    }
  }

  /**
   * Real time: passes over the due deadlines, each pass streaming them in pages of `batchSize` with a
   * keyset cursor per source (`_due_at`, id) — one page in memory at a time, however many are due —
   * and running each page `concurrency` at once. Within a pass the scheduler needs no read-your-writes
   * (the cursor never returns to a document it has passed, and every command names what it expects,
   * so a document read before the projections caught up decides nothing), but it lets the projections
   * lag at most one page behind: before a page it waits for them to reach where the store stood when
   * the page before the last one ended (they project one page while the run renews the next; a run
   * faster than its projections would otherwise leave every request of the service waiting behind
   * its backlog). At the end of a pass that ran something it waits for the projections to reach
   * everything appended and passes again from the start, for the deadlines the pass itself made due
   * (a renewal's collection that went past due); a pass that runs nothing ends the run.
   */
  private async runRealTime(until: Date): Promise<RunResult> {
    const limit = until.toISOString();
    const stuck = new Set<string>();
    const skip = (d: Due) => stuck.has(key(d)) || this.resting(d, until);
    let ran = 0;
    let position: string | null = null;
    for (;;) {
      let ranInPass = 0;
      const cursors = new Map<DeadlineSource, Cursor>();
      /** Where the store's head stood when the last two pages ended: the projections may lag one page behind the run, no more. */
      let pageBeforeLast: string | null = null;
      let lastPage: string | null = null;
      for (;;) {
        const due = await this.nextPage(cursors, limit, skip);
        if (due.length === 0) break;
        if (pageBeforeLast) await this.projected(pageBeforeLast);
        const results = await this.inParallel(due, this.concurrency, async (d) => {
          const p = await this.run(d, until);
          if (p === null) stuck.add(key(d));
          return p;
        });
        ranInPass += due.length;
        for (const p of results) position = laterPosition(position, p);
        pageBeforeLast = lastPage;
        lastPage = await this.events.headPosition();
      }
      ran += ranInPass;
      if (ranInPass === 0) return { ran, position };
      position = laterPosition(position, await this.events.headPosition());
      await this.projected(position);
    }
  }

  /**
   * Waits until the projections have committed `position`, however long that takes while they move
   * on (a billing run can append faster than they project): the next pass, or the next page, must
   * not read documents older than what the run wrote — a stale due document decides nothing, but it
   * is run again for nothing and then rests, and a pass that finds only those would end the run with
   * the projections still behind. Gives up after `projectionWaitRounds` waits of 10 s (a projection
   * that stopped moving); a parked projection throws (the run fails and is tried at the next poll).
   */
  private async projected(position: string | null): Promise<void> {
    for (let round = 0; round < this.projectionWaitRounds; round++) if (await this.projections.waitFor(position, 10_000)) return;
    this.logger.warn(`the projections did not reach ${position} in ${this.projectionWaitRounds * 10} s; going on`);
  }

  /** How many 10 s waits for the projections a real-time run makes before going on without them. */
  projectionWaitRounds = 30;

  /**
   * The next page of a real-time pass: up to `batchSize` due deadlines after each source's cursor,
   * every source merged in time order; each cursor moves past the documents of its source the page
   * takes (and past those it skips: a deadline that decided nothing in this run, or rests, never hides
   * the ones after it — nor its own document's later deadlines due by `until`, see `nextOf`).
   */
  private async nextPage(cursors: Map<DeadlineSource, Cursor>, until: string, skip: (d: Due) => boolean): Promise<Due[]> {
    const candidates: { due: Due | null; at: Exclude<Cursor, undefined>; source: DeadlineSource }[] = [];
    await Promise.all(
      this.sources.map(async (source) => {
        const cursor = cursors.get(source);
        if (cursor === 'done') return;
        let after = cursor;
        if (cursor === undefined) {
          // A pass starts with a probe of one document: when nothing is due (nearly every poll) it reads
          // that one, not a page of documents due later.
          const [first] = await this.store.find<DeadlineDoc>(source.collection, { where: { _clock: '' }, orderBy: { field: '_due_at', direction: 'asc' }, limit: 1 });
          if (!first || first._due_at > until || first._due_at === NO_DEADLINE) {
            candidates.push({ due: null, at: 'done', source });
            return;
          }
        }
        for (;;) {
          const docs = await this.store.find<DeadlineDoc>(source.collection, { where: { _clock: '' }, orderBy: { field: '_due_at', direction: 'asc' }, after, limit: this.batchSize });
          let taken = 0;
          for (const doc of docs) {
            if (doc._due_at > until || doc._due_at === NO_DEADLINE) {
              candidates.push({ due: null, at: 'done', source });
              return;
            }
            const d = nextOf(source, doc, until, skip);
            candidates.push({ due: d, at: { value: doc._due_at, id: doc.id }, source });
            if (d) taken++;
          }
          if (docs.length < this.batchSize) {
            candidates.push({ due: null, at: 'done', source });
            return;
          }
          if (taken > 0) return;
          // A whole page skipped (rests, deadlines that decided nothing): read on.
          const last = docs[docs.length - 1];
          after = { value: last._due_at, id: last.id };
        }
      }),
    );
    // Time order across sources (each source's candidates are already in its index order); the page
    // ends after `batchSize` deadlines, and each source's cursor moves to the last candidate it gave.
    const order = (c: (typeof candidates)[number]) => (c.at === 'done' ? '\uffff' : `${c.at.value}\u0000${c.at.id}`);
    candidates.sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
    const page: Due[] = [];
    for (const c of candidates) {
      if (c.at !== 'done' && page.length >= this.batchSize) break;
      cursors.set(c.source, c.at);
      if (c.due) page.push(c.due);
    }
    return page;
  }

  /**
   * The earliest due deadlines of a test clock that may run now (not `skip`ped), every source merged
   * in time order. Pages past skipped ones, so a deadline that decides nothing never hides the ones
   * after it — nor its own document's later deadlines (`_deadlines`): the document then takes part
   * with its next deadline due by `until` (see `nextOf`). Such a deadline is later than the index
   * position, so an `ordered` query (one at a time) reads on until the index passes it.
   */
  private async due(clock: string, until: string, limit: number, skip: (d: Due) => boolean, ordered = false): Promise<Due[]> {
    const page = async (source: DeadlineSource): Promise<Due[]> => {
      const out: Due[] = [];
      const full = (at: string) => out.length >= limit && (!ordered || at > out.map((d) => d.doc._due_at).sort()[limit - 1]);
      let after: { value: string; id: string } | undefined;
      for (;;) {
        const docs = await this.store.find<DeadlineDoc>(source.collection, { where: { _clock: clock }, orderBy: { field: '_due_at', direction: 'asc' }, after, limit: this.batchSize });
        for (const doc of docs) {
          if (doc._due_at > until || doc._due_at === NO_DEADLINE || full(doc._due_at)) return out;
          const d = nextOf(source, doc, until, skip);
          if (d) out.push(d);
        }
        if (docs.length < this.batchSize) return out;
        const last = docs[docs.length - 1];
        after = { value: last._due_at, id: last.id };
      }
    };
    const pages = await Promise.all(this.sources.map(page));
    return pages
      .flat()
      .sort((a, b) => (a.doc._due_at < b.doc._due_at ? -1 : a.doc._due_at > b.doc._due_at ? 1 : a.doc.id < b.doc.id ? -1 : 1))
      .slice(0, limit);
  }

  private async run(d: Due, now: Date, rethrow = false): Promise<string | null> {
    const ctx: CommandContext = {
      accountId: d.doc._account,
      mode: d.doc.is_test ? 'test' : 'live',
      requestId: null,
      idempotencyKey: null,
      causationId: `deadline:${d.doc._due_kind}:${d.doc.id}:${d.doc._due_at}`,
      correlationId: d.doc.id,
      now,
      testClock: d.doc._clock || null,
    };
    try {
      const position = await d.source.run(ctx, d.doc);
      if (position === null && !rethrow) this.idle.set(key(d), now.getTime());
      return position;
    } catch (error) {
      this.logger.error(`deadline ${d.doc._due_kind} of ${d.doc.id} failed: ${(error as Error).message}`);
      if (rethrow) throw error;
      this.idle.set(key(d), now.getTime());
      return null;
    }
  }

  /** A deadline that decided nothing rests a minute (real time) before it is tried again. */
  /** Forgets rests older than ten minutes (their documents have moved on or will be tried again). */
  private forgetOldRests(now: number): void {
    for (const [k, since] of this.idle) if (now - since > 600_000) this.idle.delete(k);
  }

  private resting(d: Due, until: Date): boolean {
    const since = this.idle.get(key(d));
    if (since === undefined) return false;
    if (until.getTime() - since >= 60_000) {
      this.idle.delete(key(d));
      return false;
    }
    return true;
  }

  private async inParallel<T, R>(items: T[], width: number, run: (item: T) => Promise<R>): Promise<R[]> {
    const out: R[] = new Array(items.length);
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(width, items.length) }, async () => {
        while (next < items.length) {
          const i = next++;
          out[i] = await run(items[i]);
        }
      }),
    );
    return out;
  }
}

const key = (d: Due) => `${d.source.name}|${d.doc.id}|${d.doc._due_kind}|${d.doc._due_at}`;

/**
 * The deadline of `doc` a run may act on: its first (`_due_kind` at `_due_at`), or, when that one is
 * `skip`ped (it decided nothing in this run, or rests), the next of its `_deadlines` due by `until`
 * that is not — handed to the source as the document with that deadline's kind and time. A document
 * without `_deadlines` (a source with one deadline per document) has only its first. Null: nothing
 * of it may run now.
 */
function nextOf(source: DeadlineSource, doc: DeadlineDoc, until: string, skip: (d: Due) => boolean): Due | null {
  const first: Due = { source, doc };
  if (!skip(first)) return first;
  for (const deadline of doc._deadlines ?? []) {
    if (deadline.at > until) return null;
    if (deadline.kind === doc._due_kind && deadline.at === doc._due_at) continue;
    const d: Due = { source, doc: { ...doc, _due_kind: deadline.kind, _due_at: deadline.at } };
    if (!skip(d)) return d;
  }
  return null;
}
