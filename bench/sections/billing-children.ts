import { CommandBus } from '@nestjs/cqrs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import { CreateAccountCommand, type CreatedAccount } from '#accounts/application/create-account.js';
import { createApp } from '#api/create-app.js';
import type { EventStore, NewEvent, StreamAppend } from '#event-store/event-store.port.js';
import type { CommandContext } from '#platform/command-context.js';
import { loadConfig } from '#platform/config.js';
import { EVENT_STORE, READ_STORE } from '#platform/tokens.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import type { DocumentWrite, ReadStore } from '#read-store/read-store.port.js';
import { Scheduler } from '#scheduling/scheduler.js';
import { FixedClock } from '#shared/clock.js';
import { newEventUuid, newId } from '#shared/ids.js';
import { type CreateSubscriptionBody, CreateSubscriptionCommand } from '#subscriptions/application/create-subscription.js';
import { SubscriptionInputs } from '#subscriptions/application/subscription-inputs.js';
import { type SubscriptionInput, subscriptionDecider, subscriptionStream } from '#subscriptions/domain/subscription.decider.js';
import { bounded, CONCURRENCY } from '../support/concurrency.js';
import { MiB } from '../support/format.js';
import { startCpuProfile } from '../support/profile.js';

/**
 * The billing run's two child processes (section 5, bench/sections/billing.ts starts them): the bench's
 * entry run again with BENCH_BILLING_CHILD=seed or run, BENCH_BILLING_RENEWALS and BENCH_BILLING_DATA_DIR.
 */

/** How section 5 creates its subscriptions: `events` (decided, appended directly; default) or `commands` (the migrate command handler). */
export const SEED = process.env.BENCH_SEED ?? 'events';
if (!['events', 'commands'].includes(SEED)) throw new Error(`BENCH_SEED must be events or commands (got ${SEED})`);

/** A decided event as `AggregateExecutor.execute` stores it. */
function recordedAs(e: { type: string; data: unknown }, ctx: CommandContext, now: Date): NewEvent {
  return {
    id: newEventUuid(),
    type: e.type,
    data: e.data as Record<string, unknown>,
    metadata: {
      account_id: ctx.accountId,
      mode: ctx.mode,
      request_id: ctx.requestId ?? undefined,
      idempotency_key: ctx.idempotencyKey ?? null,
      causation_id: ctx.causationId ?? ctx.requestId ?? undefined,
      correlation_id: ctx.correlationId ?? ctx.requestId ?? undefined,
      occurred_at: now.toISOString(),
    },
  };
}

/**
 * What the billing run asks of the stores, counted while runDue runs: stream reads by stream kind,
 * read-model queries (get/getMany/find) and document writes by collection. BENCH_COUNT_IDENTICAL=1
 * also counts writes that rewrite a document unchanged but for its `_position` (it keeps every written
 * document in memory: for small runs).
 */
function countStoreWork(events: EventStore, reads: ReadStore) {
  const streamReads = new Map<string, number>();
  const queries = new Map<string, number>();
  const writes = new Map<string, number>();
  let identical = 0;
  const last = process.env.BENCH_COUNT_IDENTICAL === '1' ? new Map<string, string>() : null;
  const add = (m: Map<string, number>, k: string, n = 1) => m.set(k, (m.get(k) ?? 0) + n);
  const e = events as unknown as Record<string, (...a: unknown[]) => unknown>;
  const r = reads as unknown as Record<string, (...a: unknown[]) => unknown>;
  const originals: [Record<string, unknown>, string, unknown][] = [];
  const wrap = (target: Record<string, (...a: unknown[]) => unknown>, name: string, count: (...a: unknown[]) => void) => {
    const original = target[name];
    originals.push([target, name, Object.prototype.hasOwnProperty.call(target, name) ? original : undefined]);
    target[name] = function (this: unknown, ...args: unknown[]) {
      count(...args);
      return original.apply(this, args);
    };
  };
  wrap(e, 'readStream', (stream) => add(streamReads, String(stream).split('-')[0]));
  for (const q of ['get', 'getMany', 'find', 'count']) if (typeof r[q] === 'function') wrap(r, q, (collection) => add(queries, `${q} ${String(collection)}`));
  wrap(r, 'commit', (w) => {
    for (const write of w as DocumentWrite[]) {
      add(writes, write.collection);
      if (last && write.doc) {
        const key = `${write.collection}/${write.id}`;
        const { _position, ...rest } = write.doc as Record<string, unknown>;
        const json = JSON.stringify(rest);
        if (last.get(key) === json) identical++;
        last.set(key, json);
      }
    }
  });
  const per = (m: Map<string, number>, n: number) =>
    [...m].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${(v / n).toFixed(2)}`).join(', ') || 'none';
  const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  return {
    stop: () => {
      for (const [target, name, own] of originals.reverse()) {
        if (own === undefined) delete target[name];
        else target[name] = own;
      }
    },
    describe: (n: number) =>
      `${(sum(streamReads) / n).toFixed(2)} stream reads (${per(streamReads, n)}); ${(sum(queries) / n).toFixed(2)} read-model queries (${per(queries, n)}); ` +
      `${(sum(writes) / n).toFixed(2)} document writes (${per(writes, n)})${last ? `, of which ${(identical / n).toFixed(2)} unchanged but for _position` : ''}`,
  };
}

/**
 * The billing run, in three processes so that the measured one holds the run alone:
 *  - a seeding child (BENCH_BILLING_CHILD=seed): the service on a fresh DATA_DIR (FixedClock,
 *    SCHEDULER=off, role all), one account, product, monthly price, a few customers with a saved
 *    card each (`POST /v1/payment_methods/migrate`, an approving simulator token), then RENEWALS
 *    migrated subscriptions, all with `next_renewal_date` T: their `subscription.created` events
 *    decided by the subscription decider from the inputs the migrate handler looks up, appended
 *    with the projections stopped by `appendMany` in groups (one commit each), then projected by
 *    one catch-up (BENCH_SEED=commands: through the migrate command handler instead, about 1,300/s);
 *  - the measured child (BENCH_BILLING_CHILD=run): the service started on that DATA_DIR with its
 *    clock at T, and `Scheduler.runDue({ clock: null }, T)` timed: each renewal is
 *    `subscription.renewed`, a collection, a transaction and charge approved by the simulator,
 *    `charge.paid`, `collection.paid`, projected before runDue returns. Its peak rss is the
 *    process's own (getrusage maxrss when runDue returns: start-up and the run, nothing else);
 *  - the bench's own process (bench/sections/billing.ts): the plain append loop of as many events,
 *    the check in the read models, the targets.
 */
const BILLING_START = new Date('2026-01-15T10:00:00.000Z');
const BILLING_DUE = new Date('2026-02-15T10:00:00.000Z');
const BILLING_CUSTOMERS = 16;
/** Subscriptions appended per `appendMany` (one commit) while seeding. */
export const SEED_GROUP = 2000;

export interface SeedResult {
  accountId: string;
  appendedSeconds: number | null;
  seededSeconds: number;
  projectedSeconds: number;
  setupSeconds: number;
}

export interface RunChildResult {
  ran: number;
  seconds: number;
  cpuSeconds: number;
  load: number[];
  appended: number;
  byType: [string, number][];
  headBefore: string | null;
  headAfter: string | null;
  rssStart: number;
  rssSampledPeak: number;
  processPeak: number;
  caughtUp: boolean;
  work: string;
  /** process.memoryUsage() when runDue returned. */
  memory: string;
}

export const billingConfig = (dataDir: string) => ({ ...loadConfig({ DATA_DIR: dataDir, SCHEDULER: 'off', LOG_LEVEL: 'warn', PROJECTIONS_THREAD: process.env.PROJECTIONS_THREAD ?? '' }), role: 'all' as const });

/** The seeding child: see the comment above BILLING_START. */
async function billingSeedChild(RENEWALS: number, dataDir: string): Promise<SeedResult> {
  const clock = new FixedClock(BILLING_START);
  const app = await createApp({ config: billingConfig(dataDir), clock });
  try {
    const engine = app.get(ProjectionEngine);
    const events = app.get<EventStore>(EVENT_STORE);
    const bus = app.get(CommandBus);
    const fastify = app.getHttpAdapter().getInstance();
    const account = await bus.execute<CreateAccountCommand, CreatedAccount>(new CreateAccountCommand('Bench billing run'));
    await engine.waitFor(account.position);
    const auth = `Basic ${Buffer.from(`${account.test_key}:`).toString('base64')}`;
    const post = async <T>(url: string, body: object): Promise<T> => {
      const res = await fastify.inject({ method: 'POST', url, headers: { authorization: auth, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
      if (res.statusCode >= 300) throw new Error(`POST ${url}: ${res.statusCode} ${res.body}`);
      return JSON.parse(res.body) as T;
    };

    const setupStarted = performance.now();
    const product = await post<{ id: string }>('/v1/products', { name: 'Plan Billing Run' });
    const price = await post<{ id: string }>('/v1/prices', {
      product_id: product.id, type: 'recurring', billing_period: 'month', billing_interval: 1, currency: 'COP', unit_price: '49900',
    });
    const payers: { customer: string; method: string }[] = [];
    for (let i = 0; i < BILLING_CUSTOMERS; i++) {
      const customer = await post<{ id: string }>('/v1/customers', { email: `billing.run.${i}@example.com`, name: `Billing Run ${i}` });
      const method = await post<{ id: string }>('/v1/payment_methods/migrate', {
        customer: customer.id, gateway: 'gateway_a', type: 'card', token: `simtok_approve_benchrun${i}`,
        card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030 }, default: true,
      });
      payers.push({ customer: customer.id, method: method.id });
    }
    const ctx: CommandContext = { accountId: account.id, mode: 'test', requestId: null, idempotencyKey: null };
    const body = (payer: (typeof payers)[number]): CreateSubscriptionBody => ({
      customer: payer.customer, collection_method: 'charge', payment_method: payer.method, items: [{ price: price.id }], next_renewal_date: BILLING_DUE.toISOString(),
    });
    const seedStarted = performance.now();
    let appendedAfter: number | null = null;
    let last: string | null = null;
    const seen = (position: string | null) => {
      if (position && (last === null || position > last)) last = position;
    };
    if (SEED === 'commands') {
      // What POST /v1/subscriptions/migrate runs, without HTTP.
      await bounded(Array.from({ length: RENEWALS }, (_, i) => payers[i % BILLING_CUSTOMERS]), CONCURRENCY, async (payer) => {
        seen((await bus.execute<CreateSubscriptionCommand, CommandResult>(new CreateSubscriptionCommand(ctx, body(payer), true))).position);
      });
    } else {
      // The same `subscription.created` events, decided by the subscription decider from the inputs the
      // migrate handler looks up (price snapshot, payment method facts), recorded as the executor
      // records them, appended SEED_GROUP streams per appendMany (one commit, each stream `no_stream`)
      // with the projectors stopped; then they catch up in their own batches.
      await engine.stop();
      const inputs = app.get(SubscriptionInputs);
      const facts = await Promise.all(payers.map((p) => inputs.paymentMethodFacts(ctx, p.customer, p.method, p.method)));
      for (let from = 0; from < RENEWALS; from += SEED_GROUP) {
        const group: StreamAppend[] = [];
        for (let k = 0; k < Math.min(SEED_GROUP, RENEWALS - from); k++) {
          const payer = payers[(from + k) % BILLING_CUSTOMERS];
          const { items, ...rest } = body(payer);
          const input: SubscriptionInput = { ...rest, items: await inputs.items(ctx, items), payment_information: undefined, test_clock: null };
          const subscriptionId = newId('sub');
          const now = clock.now();
          const decided = subscriptionDecider.decide(
            { type: 'CreateSubscription', owner: ctx, subscriptionId, firstCollectionId: newId('col'), discountIds: [], input, paymentMethods: facts[(from + k) % BILLING_CUSTOMERS], migrate: true, now },
            subscriptionDecider.initialState,
          );
          group.push({ streamId: subscriptionStream(subscriptionId), events: decided.map((e) => recordedAs(e, ctx, now)), expected: 'no_stream' });
        }
        for (const r of await events.appendMany(group)) seen(r.position);
      }
      appendedAfter = (performance.now() - seedStarted) / 1000;
      await engine.catchUp();
      engine.start();
    }
    const seeded = (performance.now() - seedStarted) / 1000;
    if (!(await engine.waitFor(last, 3_600_000))) throw new Error('billing run: the projections did not catch up with the seeding');
    const projected = (performance.now() - seedStarted) / 1000;
    return { accountId: account.id, appendedSeconds: appendedAfter, seededSeconds: seeded, projectedSeconds: projected, setupSeconds: (performance.now() - setupStarted) / 1000 };
  } finally {
    await app.close();
  }
}

/** The measured child: the service on the seeded DATA_DIR, its clock at the instant due, runDue timed. */
async function billingRunChild(RENEWALS: number, dataDir: string): Promise<RunChildResult> {
  const app = await createApp({ config: billingConfig(dataDir), clock: new FixedClock(BILLING_DUE) });
  try {
    const engine = app.get(ProjectionEngine);
    const events = app.get<EventStore>(EVENT_STORE);
    const scheduler = app.get(Scheduler);
    if (process.env.BENCH_SCHEDULER_CONCURRENCY) scheduler.concurrency = Number(process.env.BENCH_SCHEDULER_CONCURRENCY);
    const headBefore = await events.headPosition();
    const rssStart = process.memoryUsage().rss;
    let rssPeak = rssStart;
    const memoryLog = process.env.BENCH_MEMORY_LOG === '1';
    const snapshotDir = process.env.BENCH_HEAP_SNAPSHOT;
    const snapshotAt = Number(process.env.BENCH_HEAP_SNAPSHOT_AT ?? 200) * 1048576;
    let snapshotTaken = false;
    let ticks = 0;
    const sampler = setInterval(() => {
      const m = process.memoryUsage();
      rssPeak = Math.max(rssPeak, m.rss);
      if (memoryLog && ++ticks % 10 === 0) console.log(`   memory: rss ${MiB(m.rss)}, heap ${MiB(m.heapUsed)} of ${MiB(m.heapTotal)}, external ${MiB(m.external)} (array buffers ${MiB(m.arrayBuffers)})`);
      if (snapshotDir && !snapshotTaken && m.heapUsed >= snapshotAt) {
        snapshotTaken = true;
        console.log(`   heap snapshot: ${writeHeapSnapshot(join(snapshotDir, `billing-run-${RENEWALS}.heapsnapshot`))}`);
      }
    }, 100);
    const counts = countStoreWork(events, app.get<ReadStore>(READ_STORE));
    const profiler = await startCpuProfile();
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const result = await scheduler.runDue({ clock: null }, BILLING_DUE);
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    counts.stop();
    clearInterval(sampler);
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    // The process's own peak so far (start-up and the run): getrusage's maxrss, in KiB on Linux.
    const processPeak = process.resourceUsage().maxRSS * 1024;
    const memory = process.memoryUsage();
    await profiler?.stop(`billing-run-${RENEWALS}`);
    const load = loadavg();
    const headAfter = await events.headPosition();
    const caughtUp = await engine.waitFor(headAfter, 1);
    // What the run appended, by type.
    const byType = new Map<string, number>();
    let appended = 0;
    for (let after = headBefore; ; ) {
      const page = await events.readAll({ after: after ?? undefined, maxCount: 10_000 });
      if (page.length === 0) break;
      for (const e of page) byType.set(e.type, (byType.get(e.type) ?? 0) + 1);
      appended += page.length;
      after = page[page.length - 1].position;
    }
    return {
      ran: result.ran, seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, load, appended, byType: [...byType], headBefore, headAfter,
      rssStart, rssSampledPeak: rssPeak, processPeak, caughtUp, work: counts.describe(RENEWALS),
      memory: `V8 heap ${MiB(memory.heapUsed)} used of ${MiB(memory.heapTotal)}, external ${MiB(memory.external)}, rss ${MiB(memory.rss)}`,
    };
  } finally {
    await app.close();
  }
}


/** A child process of the billing run: runs its phase (BENCH_BILLING_CHILD), reports on its last line (`@@result {…}`), and ends. */
export async function billingChildMain(phase: string): Promise<never> {
  const n = Number(process.env.BENCH_BILLING_RENEWALS);
  const dataDir = process.env.BENCH_BILLING_DATA_DIR!;
  const result = phase === 'seed' ? await billingSeedChild(n, dataDir) : await billingRunChild(n, dataDir);
  console.log(`@@result ${JSON.stringify(result)}`);
  process.exit(0);
}
