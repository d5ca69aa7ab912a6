/**
 * `npm run bench`: figures measured in this run, each against a baseline measured in the same run.
 *  1. Embedded event store append throughput (single-event and 10-event commits) vs a plain
 *     better-sqlite3 insert loop writing the same rows with the same durability (WAL, synchronous=FULL).
 *  2. Projection rebuild speed over 100,000 events (events per second, every projection).
 *  3. Over HTTP (the built service in its own process, autocannon here): creating a product
 *     (command, append, projections, read model) against an authenticated GET of one product.
 *  4. The same for creating a `charge` subscription paid with the approving test card (subscription,
 *     collection, transaction, charge, saved payment method, activation), checked afterwards: every
 *     2xx answer is an `active` subscription in GET /v1/subscriptions.
 *  5. A billing run: BENCH_RENEWALS (default 10,000 then 100,000; a comma list) migrated `charge` subscriptions due at the same
 *     instant, renewed by the deadline scheduler in-process (renewal, collection, charge with the
 *     approving test card, paid, all projected) against a plain loop appending as many events to a
 *     fresh embedded store, 128 in flight; checked afterwards in the read models.
 *
 *  6. Hosted checkout completions through the page's own HTTP calls (the service listening on a local
 *     port, real sockets): the merchant creates a checkout session (mode subscription), the customer's
 *     browser opens it (token exchange), identifies (a new customer by e-mail) and pays with the
 *     approving card on the page; against create-subscription (charge, approving card) over the API,
 *     same concurrency, same run; checked afterwards (every completion a paid session with an active subscription).
 *  7. Webhooks: deliveries per second to a local receiver answering 200 at once (BENCH_WEBHOOK_EVENTS,
 *     default 3,000, already in the store; one endpoint and ten), against the feed's own read of the
 *     same events (GET /v1/events pages) in the same run; then append-to-receipt latency p50/p99
 *     under a steady 200 events/s for BENCH_WEBHOOK_SECONDS (default 10).
 *  8. Deciding a command on a subscription with ten years of monthly renewals against a new one.
 *
 * Each target of the performance issue is printed with its bound and PASS/FAIL, and summed up at
 * the end (targets are reported, not asserted); a failed correctness check makes the run exit 1.
 * BENCH_ONLY=append,rebuild,http,subscriptions,billing,checkout,webhooks,history runs only the sections named.
 * The billing run's process also takes: BENCH_MEMORY_LOG=1 (process.memoryUsage() every second),
 * BENCH_HEAP_SNAPSHOT=DIR (one heap snapshot when the V8 heap passes BENCH_HEAP_SNAPSHOT_AT MiB,
 * default 200; large, do not commit), BENCH_SCHEDULER_CONCURRENCY=N (deadlines in flight).
 * PROJECTIONS_THREAD=inline runs the service's and the billing run's projection pipeline on the event
 * loop instead of in a thread of its own (the default, `worker`; the comparison in docs/decisions.md).
 */
import { CommandBus } from '@nestjs/cqrs';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import { createApp } from '#api/create-app.js';
import { CreateAccountCommand, type CreatedAccount } from '#accounts/application/create-account.js';
import type { EventStore, NewEvent, StreamAppend } from '#event-store/event-store.port.js';
import { decodePosition } from '#event-store/positions.js';
import { SqliteEventStore } from '#event-store/sqlite-event-store.js';
import type { CommandContext } from '#platform/command-context.js';
import { loadConfig, readStoreFile } from '#platform/config.js';
import { EVENT_STORE, READ_STORE } from '#platform/tokens.js';
import type { DocumentWrite, ReadStore } from '#read-store/read-store.port.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { Scheduler } from '#scheduling/scheduler.js';
import { FixedClock } from '#shared/clock.js';
import { newEventUuid, newId } from '#shared/ids.js';
import { type CreateSubscriptionBody, CreateSubscriptionCommand } from '#subscriptions/application/create-subscription.js';
import { SubscriptionInputs } from '#subscriptions/application/subscription-inputs.js';
import { UpdateSubscriptionCommand } from '#subscriptions/application/update-subscription.js';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import { type SubscriptionInput, subscriptionDecider, subscriptionStream } from '#subscriptions/domain/subscription.decider.js';
import { SqliteReadStore } from '#read-store/sqlite-read-store.js';
import { allProjections } from '#projections/index.js';
import { WebhookDispatcher } from '#webhooks/application/webhook-dispatcher.js';
import { ProjectionEngine } from '#projections/runtime/projection-engine.js';

const COMMITS = Number(process.env.BENCH_COMMITS ?? 3000);
const REBUILD_EVENTS = Number(process.env.BENCH_REBUILD_EVENTS ?? 100_000);
/** Billing-run sizes (a comma list): with two or more, their peak rss is compared (target: within ±20 %). */
const RENEWALS_LIST = (process.env.BENCH_RENEWALS ?? '10000,100000').split(',').map((x) => Number(x.trim())).filter((n) => n > 0);
const HISTORY_MONTHS = Number(process.env.BENCH_HISTORY_MONTHS ?? 120);
/** How section 5 creates its subscriptions: `events` (decided, appended directly; default) or `commands` (the migrate command handler). */
const SEED = process.env.BENCH_SEED ?? 'events';
if (!['events', 'commands'].includes(SEED)) throw new Error(`BENCH_SEED must be events or commands (got ${SEED})`);
const SECTIONS = ['append', 'rebuild', 'http', 'subscriptions', 'billing', 'checkout', 'webhooks', 'history'];
const ONLY = (process.env.BENCH_ONLY ?? '').split(',').map((x) => x.trim()).filter(Boolean);
for (const name of ONLY) if (!SECTIONS.includes(name)) throw new Error(`BENCH_ONLY: unknown section ${name} (known: ${SECTIONS.join(', ')})`);
const CONCURRENCY = 64;
const CONNECTIONS = 32;

const dir = mkdtempSync(join(tmpdir(), 'billing-bench-'));

/** The issue's targets, each measured as a ratio (or a bound) in this run: reported, never asserted. */
const targets: { name: string; value: number; bound: number; better: 'higher' | 'lower'; pass: boolean }[] = [];
function target(name: string, value: number, bound: number, better: 'higher' | 'lower' = 'higher'): void {
  const pass = better === 'higher' ? value >= bound : value <= bound;
  targets.push({ name, value, bound, better, pass });
  console.log(`   target: ${name} = ${value.toFixed(value < 10 ? 3 : 0)} (${better === 'higher' ? '≥' : '≤'} ${bound}): ${pass ? 'PASS' : 'FAIL'}`);
}
/** Correctness checks that failed: `npm run bench` exits non-zero when there is any. */
const failures: string[] = [];
const billingPeaks = new Map<number, number>();
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

function event(i: number): NewEvent {
  return {
    id: newEventUuid(),
    type: 'product.updated',
    data: { id: `prod_${i}`, changes: { name: `Product ${i}`, meta_data: { sku: `SKU-${i}` } } },
    metadata: { account_id: 'acct_bench', mode: 'test', occurred_at: '2026-11-23T10:00:00.000Z', request_id: `req_${i}` },
  };
}

/** The baseline: one transaction per commit, the same rows, no grouping. */
function plainInsertLoop(file: string, commits: number, perCommit: number): number {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(`CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT, event_id TEXT NOT NULL UNIQUE, stream_id TEXT NOT NULL,
    revision INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, metadata TEXT NOT NULL, UNIQUE (stream_id, revision))`);
  const insert = db.prepare('INSERT INTO events (event_id, stream_id, revision, type, data, metadata) VALUES (?, ?, ?, ?, ?, ?)');
  const commit = db.transaction((stream: string, events: NewEvent[]) => {
    events.forEach((e, r) => insert.run(e.id, stream, r, e.type, JSON.stringify(e.data), JSON.stringify(e.metadata)));
  });
  const started = performance.now();
  for (let c = 0; c < commits; c++) commit(`product-${c}`, Array.from({ length: perCommit }, (_, i) => event(c * perCommit + i)));
  const seconds = (performance.now() - started) / 1000;
  db.close();
  return commits / seconds;
}

async function storeAppends(file: string, commits: number, perCommit: number, concurrency: number): Promise<number> {
  const store = new SqliteEventStore(file);
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < commits) {
        const c = next++;
        await store.append(`product-${c}`, Array.from({ length: perCommit }, (_, i) => event(c * perCommit + i)), 'no_stream');
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await store.close();
  return commits / seconds;
}

/** The median of a few figures. */
const middleOf = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** `run` three times, one after another: its figures (fsyncs and the page cache make them swing from run to run). */
async function threeTimes(run: (i: number) => number | Promise<number>): Promise<number[]> {
  const values: number[] = [];
  for (let i = 0; i < 3; i++) values.push(await run(i));
  return values;
}

/** Each figure is the median of three runs. */
const median = async (run: (i: number) => number | Promise<number>): Promise<number> => middleOf(await threeTimes(run));

async function appendBench() {
  console.log(`\n1. Embedded event store appends (${fmt(COMMITS)} commits each, WAL + synchronous=FULL, median of 3 runs)`);
  console.log('   case                         store commits/s   plain loop commits/s   ratio');
  for (const perCommit of [1, 10]) {
    const baseline = await median((i) => plainInsertLoop(join(dir, `plain-${perCommit}-${i}.sqlite`), COMMITS, perCommit));
    const sequential = await median((i) => storeAppends(join(dir, `seq-${perCommit}-${i}.sqlite`), COMMITS, perCommit, 1));
    const concurrent = await median((i) => storeAppends(join(dir, `conc-${perCommit}-${i}.sqlite`), COMMITS, perCommit, CONCURRENCY));
    const row = (label: string, v: number) =>
      console.log(`   ${label.padEnd(28)} ${fmt(v).padStart(15)} ${fmt(baseline).padStart(22)}   ${(v / baseline).toFixed(2)}x`);
    row(`${perCommit}-event, one at a time`, sequential);
    row(`${perCommit}-event, ${CONCURRENCY} in flight`, concurrent);
    console.log(`   (${perCommit}-event commits: ${fmt(concurrent * perCommit)} events/s with ${CONCURRENCY} in flight)`);
  }
}

async function rebuildBench() {
  console.log(`\n2. Projection rebuild over ${fmt(REBUILD_EVENTS)} events (every projection, embedded stores)`);
  const events = new SqliteEventStore(join(dir, 'rebuild-events.sqlite'));
  const products = Math.max(1, Math.floor(REBUILD_EVENTS / 10));
  const batch: Promise<unknown>[] = [];
  for (let p = 0; p < products; p++) {
    const id = `prod_bench${String(p).padStart(8, '0')}`;
    const created = new Date(Date.UTC(2026, 0, 1) + p * 1000).toISOString();
    const evs: NewEvent[] = [
      {
        id: newEventUuid(),
        type: 'product.created',
        data: {
          id, account_id: 'acct_bench', is_test: p % 2 === 0, created_at: created, name: `Product ${p}`, description: null, status: 'active',
          product_merchant_id: null, product_invoicing_id: null, product_shopA_id: null, product_shopB_id: null, image: null,
          invoice_settings: { invoice_tax_id: null, invoice_tax_percentage: '19' }, meta_data: {},
        },
        metadata: { account_id: 'acct_bench', mode: p % 2 === 0 ? 'test' : 'live', occurred_at: created },
      },
      ...Array.from({ length: 9 }, (_, u) => ({
        id: newEventUuid(),
        type: 'product.updated',
        data: { id, changes: { name: `Product ${p} v${u + 1}`, meta_data: { version: String(u + 1) } } },
        metadata: { account_id: 'acct_bench', mode: (p % 2 === 0 ? 'test' : 'live') as 'test' | 'live', occurred_at: created },
      })),
    ];
    batch.push(events.append(`product-${id}`, evs, 'no_stream'));
    if (batch.length >= 500) await Promise.all(batch.splice(0));
  }
  await Promise.all(batch);
  const total = products * 10;

  // The baseline: a plain read-and-parse of the same events from the same store, in pages; three
  // times (its speed swings with the page cache), the median counts.
  const readPass = async () => {
    const readStarted = performance.now();
    let read = 0;
    for (let after: string | null = null; ; ) {
      const page = await events.readAll({ after, maxCount: 1000 });
      if (page.length === 0) break;
      read += page.length;
      after = page[page.length - 1].position;
    }
    if (read !== total) throw new Error(`rebuild: read ${read} events of ${total}`);
    return (performance.now() - readStarted) / 1000;
  };
  const readTimes = await threeTimes(readPass);
  const readSeconds = middleOf(readTimes);

  const store = new SqliteReadStore(join(dir, 'rebuild-read.sqlite'));
  const engine = new ProjectionEngine(allProjections(), events, store);
  await engine.init();
  const rssBefore = process.memoryUsage().rss;
  const profiler = await startCpuProfile();
  let started = performance.now();
  await engine.rebuild();
  const times = [(performance.now() - started) / 1000];
  await profiler?.stop(`rebuild-${total}`);
  const rss = process.memoryUsage().rss - rssBefore;
  const dumps = [dumpReadModels(join(dir, 'rebuild-read.sqlite'))];
  // Twice more (the same work: every read model emptied and rebuilt): the median counts, and each must end byte-identical.
  for (let i = 0; i < 2; i++) {
    started = performance.now();
    await engine.rebuild();
    times.push((performance.now() - started) / 1000);
    dumps.push(dumpReadModels(join(dir, 'rebuild-read.sqlite')));
  }
  const seconds = middleOf(times);
  const list = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(', ');
  console.log(`   plain read-and-parse: ${fmt(total / readSeconds).padStart(9)} events/s (median of ${list(readTimes)} s for ${fmt(total)} events)`);
  console.log(`   rebuild of all ${engine.projections.length} projections (one pass): ${fmt(total / seconds).padStart(9)} events/s (median of ${list(times)} s)`);
  console.log(`   rss ${fmt(rss / 1048576)} MiB above the start of the first rebuild`);
  const same = dumps.every((d) => d === dumps[0]);
  console.log(`   check: three rebuilds end byte-identical (sha-256 of every read-model table): ${same ? 'OK' : 'FAILED'}`);
  target('rebuild of every projection / plain read-and-parse', readSeconds / seconds, 0.4);
  await events.close();
  await store.close();
  if (!same) throw new Error('rebuild: the rebuilds of the same events differ');
}

/** A hash of every read-model table's rows, in id order. */
function dumpReadModels(file: string): string {
  const db = new Database(file, { readonly: true });
  const hash = createHash('sha256');
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rm_%' ORDER BY name").all() as { name: string }[];
  for (const { name } of tables) {
    hash.update(name);
    for (const row of db.prepare(`SELECT id, doc FROM ${name} ORDER BY id`).iterate() as Iterable<{ id: string; doc: string }>) hash.update(row.id).update(row.doc);
  }
  db.close();
  return hash.digest('hex');
}

interface Service {
  url: string;
  /** Basic auth with the default account's test key, and a JSON content type. */
  headers: Record<string, string>;
  /** SIGTERM, resolved once the process has exited (so its port and files are free). */
  stop: () => Promise<void>;
}

/** Starts `dist/apps/api/src/main.js` on a fresh DATA_DIR (`name` under the bench directory), with its default test key. */
async function startService(name: string): Promise<Service> {
  const port = 3900 + Math.floor(Math.random() * 90);
  const child = spawn(process.execPath, ['dist/apps/api/src/main.js'], {
    // RATE_LIMIT_MAX=0: the per-key limit (100/s by default) would answer the load with 429s.
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: join(dir, name), LOG_LEVEL: 'warn', RATE_LIMIT_MAX: '0' },
    stdio: ['ignore', 'inherit', 'pipe'],
  });
  let out = '';
  const key = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start:\n${out}`)), 30_000);
    // The start-up text (the first start's keys, then "Billing service on …") is on stderr.
    child.stderr!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const found = /test: (sk_test_\w+)/.exec(out);
      if (found && out.includes('Billing service on')) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    headers: { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}`, 'content-type': 'application/json' },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** A request to the service outside the load (set-up, checks); anything but a 2xx throws with the answer. */
async function call<T>(service: Service, path: string, body?: object): Promise<T> {
  const res = await fetch(`${service.url}${path}`, { method: body ? 'POST' : 'GET', headers: service.headers, body: body && JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${body ? 'POST' : 'GET'} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

/** Every object of a list endpoint, page by page (100 a page). */
async function listAll<T extends { id: string }>(service: Service, path: string): Promise<T[]> {
  const all: T[] = [];
  for (let after = ''; ; ) {
    const page = await call<{ data: T[]; has_more: boolean }>(service, `${path}?limit=100${after && `&starting_after=${after}`}`);
    all.push(...page.data);
    if (!page.has_more || page.data.length === 0) return all;
    after = page.data[page.data.length - 1].id;
  }
}

async function load(opts: autocannon.Options) {
  const result = await autocannon({ connections: CONNECTIONS, duration: 5, ...opts });
  if (result.non2xx || result.errors) {
    throw new Error(`${opts.title}: ${result.non2xx} non-2xx (${JSON.stringify(result.statusCodeStats)}), ${result.errors} errors`);
  }
  return result;
}

const row = (label: string, r: autocannon.Result) =>
  console.log(`   ${label.padEnd(44)} ${fmt(r.requests.average).padStart(7)} req/s   p50 ${r.latency.p50} ms   p99 ${r.latency.p99} ms`);

const WARM_UP_S = 2;
/** Measurements of each HTTP load: a single 5 s load here swung by ±15 % from one run to the next. */
const ROUNDS = 3;

interface Rounds {
  get: autocannon.Result[];
  write: autocannon.Result[];
}

/**
 * An HTTP section's measurement: the authenticated GET of one product (the baseline) and `write`,
 * each first run WARM_UP_S unmeasured (both timed warm, past the JIT compiling their paths), then
 * ROUNDS rounds of GET then write, alternating so that a slow spell of the machine weighs on both.
 * `write(duration)` runs the write load (`duration` given: the warm-up).
 */
async function alternating(service: Service, write: (duration?: number) => Promise<autocannon.Result>): Promise<Rounds> {
  const { id } = await call<{ id: string }>(service, '/v1/products', { name: 'Bench' });
  const get: autocannon.Options = { url: `${service.url}/v1/products/${id}`, headers: service.headers, title: 'GET' };
  await load({ ...get, duration: WARM_UP_S, title: 'GET warm-up' });
  await write(WARM_UP_S);
  const rounds: Rounds = { get: [], write: [] };
  for (let i = 0; i < ROUNDS; i++) {
    rounds.get.push(await load(get));
    rounds.write.push(await write());
  }
  return rounds;
}

/** Prints each round and the medians; the ratio of the medians and the write's median p99. */
function compare(rounds: Rounds, name: string, label: string): { ratio: number; p99: number } {
  rounds.get.forEach((get, i) => {
    row(`round ${i + 1}: GET /v1/products/{id} (baseline)`, get);
    row(`round ${i + 1}: ${label}`, rounds.write[i]);
  });
  const get = middleOf(rounds.get.map((r) => r.requests.average));
  const write = middleOf(rounds.write.map((r) => r.requests.average));
  const p99 = middleOf(rounds.write.map((r) => r.latency.p99));
  console.log(`   medians of ${ROUNDS}: GET ${fmt(get)} req/s, ${name} ${fmt(write)} req/s (p99 ${p99} ms): ${name} / GET throughput ratio ${(write / get).toFixed(2)}`);
  return { ratio: write / get, p99 };
}

async function httpBench() {
  console.log(`\n3. HTTP on the embedded default (service in its own process, LOG_LEVEL=warn, ${CONNECTIONS} connections; after a ${WARM_UP_S} s warm-up of each, ${ROUNDS} rounds of 5 s each)`);
  const service = await startService('http-products');
  try {
    const body = JSON.stringify({ name: 'Plan Oro', meta_data: { sku: 'GOLD' } });
    const rounds = await alternating(service, (duration) =>
      load({ url: `${service.url}/v1/products`, method: 'POST', headers: service.headers, body, title: 'create', ...(duration ? { duration } : {}) }),
    );
    const { ratio } = compare(rounds, 'create', 'POST /v1/products (create)');
    target('create-product / authenticated GET throughput', ratio, 0.5);
  } finally {
    await service.stop();
  }
}

interface Subscription {
  id: string;
  status: string;
}

/**
 * One request = a subscription, its first collection, a transaction and a charge approved by the
 * simulator (test card 4242…), a saved payment method, and the activation. Each connection has its
 * own product, monthly price and customer, prepared before the load.
 */
async function subscriptionBench() {
  console.log(`\n4. create-subscription (charge, approved card) over HTTP (a fresh service, same settings, ${CONNECTIONS} connections, the same warm-up and rounds)`);
  const service = await startService('http-subscriptions');
  try {
    const setups = await Promise.all(
      Array.from({ length: CONNECTIONS }, async (_, i) => {
        const product = await call<{ id: string }>(service, '/v1/products', { name: `Plan ${i}` });
        const price = await call<{ id: string }>(service, '/v1/prices', {
          product_id: product.id, type: 'recurring', billing_period: 'month', billing_interval: 1, currency: 'COP', unit_price: '49900',
        });
        const customer = await call<{ id: string }>(service, '/v1/customers', { email: `bench.${i}@example.com`, name: `Bench ${i}` });
        return JSON.stringify({
          customer: customer.id,
          collection_method: 'charge',
          items: [{ price: price.id }],
          payment_information: { gateway: 'gateway_a', type: 'card', card: { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '123' } },
        });
      }),
    );
    let connection = 0;
    // The warm-up's subscriptions are in the store, not in the check's count.
    const warmedUp: Subscription[] = [];
    const answered: Subscription[] = [];
    const rounds = await alternating(service, async (duration) => {
      const into = duration ? warmedUp : answered;
      const result = await load({
        url: `${service.url}/v1/subscriptions`,
        method: 'POST',
        headers: service.headers,
        body: setups[0],
        setupClient: (client) => client.setBody(setups[connection++ % setups.length]),
        requests: [{ onResponse: (status, body) => status < 300 && into.push(JSON.parse(body) as Subscription) }],
        title: duration ? 'create-subscription warm-up' : 'create-subscription',
        ...(duration ? { duration } : {}),
      });
      // Requests cut off client-side when a load stops still complete on the server: not into the next load.
      await new Promise((resolve) => setTimeout(resolve, 500));
      return result;
    });
    const { ratio, p99 } = compare(rounds, 'create-subscription', 'POST /v1/subscriptions (create-subscription)');
    target('create-subscription / authenticated GET throughput', ratio, 0.15);
    target('create-subscription p99 latency (ms)', p99, 100, 'lower');
    const answers = rounds.write.reduce((n, r) => n + r['2xx'], 0);

    // Requests still in flight when the load stops are cut off client-side but complete on the server.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const warm = new Set(warmedUp.map((s) => s.id));
    const stored = new Map((await listAll<Subscription>(service, '/v1/subscriptions')).filter((s) => !warm.has(s.id)).map((s) => [s.id, s.status]));
    const activeNow = answered.filter((s) => stored.get(s.id) === 'active').length;
    const answeredActive = answered.filter((s) => s.status === 'active').length;
    const distinct = new Set(answered.map((s) => s.id)).size;
    const allActive = [...stored.values()].filter((status) => status === 'active').length;
    const ok = answered.length === answers && distinct === answered.length && answeredActive === distinct && activeNow === distinct;
    console.log(
      `   check: ${fmt(answers)} 2xx answers in the ${ROUNDS} rounds, ${fmt(distinct)} distinct subscriptions, ${fmt(answeredActive)} answered active,` +
        ` ${fmt(activeNow)} active in GET /v1/subscriptions afterwards: ${ok ? 'OK' : 'FAILED'}`,
    );
    console.log(
      `   (besides the warm-up's ${fmt(warm.size)}, the store holds ${fmt(stored.size)}, ${fmt(allActive)} active: ${fmt(stored.size - distinct)} more from requests cut off client-side when a load stopped)`,
    );
    if (!ok) throw new Error('create-subscription: not every 2xx created an active subscription');
  } finally {
    await service.stop();
  }
}

/** Appends `events` single-event commits, each to its own stream, `concurrency` in flight: events per second. */
async function plainAppends(store: EventStore, events: number, concurrency: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < events) {
        const c = next++;
        await store.append(`product-${c}`, [event(c)], 'no_stream');
      }
    }),
  );
  return events / ((performance.now() - started) / 1000);
}

/** Runs `run` over `items`, `width` at a time. */
async function bounded<T>(items: T[], width: number, run: (item: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        await run(items[i], i);
      }
    }),
  );
}

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
 * BENCH_CPU_PROFILE=DIR: a V8 CPU profile of the timed part of a section (e.g. the billing run's
 * runDue alone, without the seeding), written to DIR/<name>.cpuprofile (open in Chrome DevTools).
 */
async function startCpuProfile(): Promise<{ stop: (name: string) => Promise<void> } | null> {
  const out = process.env.BENCH_CPU_PROFILE;
  if (!out) return null;
  const { Session } = await import('node:inspector/promises');
  const { mkdirSync, writeFileSync } = await import('node:fs');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return {
    stop: async (name) => {
      const { profile } = await session.post('Profiler.stop');
      mkdirSync(out, { recursive: true });
      writeFileSync(join(out, `${name}.cpuprofile`), JSON.stringify(profile));
      session.disconnect();
      console.log(`   cpu profile: ${join(out, `${name}.cpuprofile`)}`);
    },
  };
}

/**
 * The billing run's baseline keeps 128 appends in flight: the scheduler's concurrency when the
 * issue's figures were measured (0.043×), fixed so that tuning the scheduler does not move its own
 * yardstick.
 */
const PLAIN_LOOP_IN_FLIGHT = 128;

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

const seqOf = (position: string | null) => (position ? Number(decodePosition(position).commit) : 0);
const MiB = (bytes: number) => `${fmt(bytes / 1048576)} MiB`;

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
 *  - this process: the plain append loop of as many events, the check in the read models, the targets.
 */
const BILLING_START = new Date('2026-01-15T10:00:00.000Z');
const BILLING_DUE = new Date('2026-02-15T10:00:00.000Z');
const BILLING_CUSTOMERS = 16;
/** Subscriptions appended per `appendMany` (one commit) while seeding. */
const SEED_GROUP = 2000;

interface SeedResult {
  accountId: string;
  appendedSeconds: number | null;
  seededSeconds: number;
  projectedSeconds: number;
  setupSeconds: number;
}

interface RunChildResult {
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

const billingConfig = (dataDir: string) => ({ ...loadConfig({ DATA_DIR: dataDir, SCHEDULER: 'off', LOG_LEVEL: 'warn', PROJECTIONS_THREAD: process.env.PROJECTIONS_THREAD ?? '' }), role: 'all' as const });

/** Runs this file again as a child for one phase of the billing run; returns what it reported (its other lines are echoed). */
function billingChild<T>(phase: 'seed' | 'run', renewals: number, dataDir: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, process.argv[1]], {
      env: { ...process.env, BENCH_BILLING_CHILD: phase, BENCH_BILLING_RENEWALS: String(renewals), BENCH_BILLING_DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let result: T | undefined;
    let buffered = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffered += chunk;
      let nl;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        if (line.startsWith('@@result ')) result = JSON.parse(line.slice(9)) as T;
        else console.log(line);
      }
    });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 && result !== undefined ? resolve(result) : reject(new Error(`billing run: the ${phase} process ended with code ${code}`))));
  });
}

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

/** This process's part of the billing run: the two children, the plain loop, the check, the targets. */
async function billingRunBench(RENEWALS: number, label: string) {
  console.log(`\n${label} Billing run: ${fmt(RENEWALS)} charge subscriptions due at the same instant, renewed by the scheduler (a process of its own, embedded stores)`);
  const dataDir = join(dir, `billing-run-${RENEWALS}`);
  const seed = await billingChild<SeedResult>('seed', RENEWALS, dataDir);
  console.log(
    `   seeding (its own process): ${fmt(RENEWALS)} migrated subscriptions ${SEED === 'commands' ? `through the CommandBus (${CONCURRENCY} in flight)` : `decided by the subscription decider and appended directly, ${fmt(SEED_GROUP)} per commit`}` +
      `${seed.appendedSeconds === null ? '' : ` in ${seed.appendedSeconds.toFixed(1)} s`} and projected in ${seed.seededSeconds.toFixed(1)} s (${fmt(RENEWALS / seed.seededSeconds)}/s; all projections caught up after ${seed.projectedSeconds.toFixed(1)} s); set-up ${seed.setupSeconds.toFixed(1)} s in all`,
  );
  const run = await billingChild<RunChildResult>('run', RENEWALS, dataDir);
  const byType = new Map(run.byType);
  const { appended, seconds } = run;

  // The plain loop three times, each on a fresh store (its speed swings with the fsyncs): the median counts.
  const baselineTimes = await threeTimes(async (i) => {
    const baselineStore = new SqliteEventStore(join(dir, `billing-baseline-${RENEWALS}-${i}.sqlite`));
    const baselineStarted = performance.now();
    await plainAppends(baselineStore, appended, PLAIN_LOOP_IN_FLIGHT);
    const elapsed = (performance.now() - baselineStarted) / 1000;
    await baselineStore.close();
    return elapsed;
  });
  const baselineSeconds = middleOf(baselineTimes);
  const baseline = appended / baselineSeconds;

  const runRate = appended / seconds;
  console.log(
    `   runDue (its own process): ${fmt(run.ran)} deadlines run in ${seconds.toFixed(1)} s: ${fmt(RENEWALS / seconds)} renewals/s; ${run.cpuSeconds.toFixed(1)} s of the process's cpu` +
      ` (${((run.cpuSeconds / RENEWALS) * 1000).toFixed(2)} ms a renewal; load average ${run.load.map((l) => l.toFixed(1)).join(' ')})`,
  );
  console.log(
    `   events appended by the run: ${fmt(appended)} (positions ${fmt(seqOf(run.headBefore))} → ${fmt(seqOf(run.headAfter))}), ${(appended / RENEWALS).toFixed(2)} per renewal:` +
      ` ${[...byType].map(([type, n]) => `${type} ${fmt(n)}`).join(', ')}`,
  );
  console.log(`   per renewal: ${run.work}`);
  console.log(
    `   rss of the run's process: ${MiB(run.rssStart)} when the service had started, peak ${MiB(run.processPeak)} (maxrss; sampled during runDue: ${MiB(run.rssSampledPeak)}, +${MiB(run.rssSampledPeak - run.rssStart)});` +
      ` projections caught up when runDue returned: ${run.caughtUp ? 'yes' : 'NO'}; when it returned: ${run.memory}`,
  );
  console.log(`   the run:    ${fmt(runRate).padStart(7)} events/s (${seconds.toFixed(1)} s)`);
  console.log(
    `   plain loop: ${fmt(baseline).padStart(7)} events/s (median of ${baselineTimes.map((t) => t.toFixed(1)).join(', ')} s): the same number of events, one per append to its own stream,` +
      ` ${PLAIN_LOOP_IN_FLIGHT} in flight, on a fresh embedded store`,
  );
  console.log(`   run / plain loop: ${(runRate / baseline).toFixed(3)}x`);
  target(`billing run of ${fmt(RENEWALS)} / plain append loop`, runRate / baseline, 0.3);
  target(`billing run of ${fmt(RENEWALS)}: peak rss of the run's process (MiB)`, run.processPeak / 1048576, 437, 'lower');
  billingPeaks.set(RENEWALS, run.processPeak);

  // The check, in the read models.
  const db = new Database(readStoreFile(billingConfig(dataDir)), { readonly: true });
  const row = db
    .prepare(
      `SELECT COUNT(*) AS subs,
              SUM(json_extract(s.doc, '$.collections_count') = 1) AS one,
              SUM(json_extract(c.doc, '$.status') = 'paid' AND json_extract(c.doc, '$.billing_reason') = 'subscription_cycle') AS paid,
              SUM(json_extract(s.doc, '$.status') = 'active') AS active,
              SUM(json_extract(s.doc, '$.next_renewal_date') = ?) AS next
         FROM rm_subscriptions s LEFT JOIN rm_collections c ON c.id = json_extract(s.doc, '$.latest_collection')
        WHERE json_extract(s.doc, '$._account') = ?`,
    )
    .get('2026-03-15T10:00:00.000Z', seed.accountId) as { subs: number; one: number; paid: number; active: number; next: number };
  // Exactly one successful charge per collection, and one collection per subscription renewed.
  const charges = db
    .prepare(
      `SELECT COUNT(*) AS collections, SUM(paid = 1) AS once FROM (
         SELECT json_extract(doc, '$.collection') AS collection, SUM(json_extract(doc, '$.status') = 'succeeded') AS paid
           FROM rm_charges WHERE json_extract(doc, '$._account') = ? GROUP BY 1)`,
    )
    .get(seed.accountId) as { collections: number; once: number };
  db.close();
  rmSync(dataDir, { recursive: true, force: true });
  const expected = ['subscription.renewed', 'collection.created', 'transaction.created', 'charge.created', 'charge.paid', 'collection.paid'];
  const eventsOk = appended === expected.length * RENEWALS && expected.every((type) => byType.get(type) === RENEWALS);
  const ok =
    eventsOk && run.ran === RENEWALS && run.caughtUp && row.subs === RENEWALS && row.one === RENEWALS && row.paid === RENEWALS && row.active === RENEWALS && row.next === RENEWALS &&
    charges.collections === RENEWALS && charges.once === RENEWALS;
  console.log(
    `   check: one of each of ${expected.join(', ')} per renewal: ${eventsOk ? 'yes' : 'NO'}; ${fmt(row.subs)} subscriptions, ${fmt(row.one)} with collections_count 1 (a migrated subscription starts at 0), ${fmt(row.paid)} with their latest collection a paid subscription_cycle,` +
      ` ${fmt(row.active)} active, ${fmt(row.next)} renewing next on 2026-03-15; ${fmt(charges.once)} of ${fmt(charges.collections)} charged collections with exactly one paid charge: ${ok ? 'OK' : 'FAILED'}`,
  );
  if (!ok) throw new Error('billing run: not every subscription was renewed and paid once');
  return run.processPeak;
}

/**
 * A customer's browser for section 6, over real sockets (Node's fetch, keep-alive): keeps its
 * cookies (the CSRF secret, the session's token cookie), reads the CSRF token of the last page, and
 * follows nothing by itself (each 303 is checked, then the next page is asked for, as a browser does).
 */
function benchBrowser(origin: string) {
  const jar = new Map<string, string>();
  let csrf = '';
  const call = async (method: 'GET' | 'POST', path: string, form?: Record<string, string>) => {
    const res = await fetch(`${origin}${path}`, {
      method,
      redirect: 'manual',
      headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '), 'user-agent': 'bench-browser', ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      body: form ? new URLSearchParams({ _csrf: csrf, ...form }).toString() : undefined,
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      if (/Max-Age=0/i.test(line)) jar.delete(pair.slice(0, eq));
      else jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    const text = await res.text();
    const m = /name="_csrf" value="([^"]+)"/.exec(text);
    if (m) csrf = m[1];
    return { status: res.status, text, location: res.headers.get('location') };
  };
  return { get: (path: string) => call('GET', path), post: (path: string, form: Record<string, string>) => call('POST', path, form) };
}

/**
 * Section 6: a checkout completion is what a merchant and a customer do together, every step over
 * HTTP on real sockets against the service listening on a local port: the merchant's POST
 * /v1/checkout_session (mode subscription, no customer), then the customer's browser — the boot page,
 * the token posted from the fragment (`/open`, the cookie set), the page, the e-mail (a new customer:
 * `/email`, the page, `/customer`, the page), the card (`/pay`, 303) and the thank-you page: nine page
 * requests, the same a browser makes (the cached script aside). The baseline is POST
 * /v1/subscriptions (charge, approving card, an existing customer) over the same sockets. Both run
 * `width` at a time for `seconds` each, in one process on fresh embedded stores; the API's per-key
 * rate limit is off for the section.
 */
async function checkoutBench() {
  const width = 16;
  const seconds = Number(process.env.BENCH_CHECKOUT_SECONDS ?? 10);
  console.log(`\n6. Hosted checkout completions through the page's own HTTP calls vs create-subscription over the API (one process listening on a local port; ${width} at a time, ${seconds} s each)`);
  const config = { ...loadConfig({ DATA_DIR: join(dir, 'checkout'), SCHEDULER: 'off', LOG_LEVEL: 'warn', RATE_LIMIT_MAX: '0' }), role: 'all' as const };
  const app = await createApp({ config });
  try {
    await app.listen(0, '127.0.0.1');
    const address = app.getHttpServer().address() as { port: number };
    const origin = `http://127.0.0.1:${address.port}`;
    const engine = app.get(ProjectionEngine);
    const bus = app.get(CommandBus);
    const account = await bus.execute<CreateAccountCommand, CreatedAccount>(new CreateAccountCommand('Bench checkout'));
    await engine.waitFor(account.position);
    const auth = `Basic ${Buffer.from(`${account.test_key}:`).toString('base64')}`;
    const api = async <T>(method: 'GET' | 'POST', path: string, body?: object): Promise<T> => {
      const res = await fetch(`${origin}${path}`, { method, headers: { authorization: auth, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
      const text = await res.text();
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
      return JSON.parse(text) as T;
    };
    const product = await api<{ id: string }>('POST', '/v1/products', { name: 'Plan Checkout' });
    const price = await api<{ id: string }>('POST', '/v1/prices', { product_id: product.id, type: 'recurring', billing_period: 'month', billing_interval: 1, currency: 'COP', unit_price: '49900' });
    const customers: string[] = [];
    for (let i = 0; i < width; i++) customers.push((await api<{ id: string }>('POST', '/v1/customers', { email: `bench.checkout.${i}@example.com`, name: `Checkout ${i}` })).id);
    const cardInfo = { gateway: 'gateway_a', type: 'card', card: { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '123' } };
    const cardForm = { method: 'card', card_number: '4242 4242 4242 4242', card_exp: '12/30', card_cvc: '123', card_holder: 'Ana Gomez' };

    const timed = async (label: string, op: (worker: number) => Promise<void>) => {
      for (let w = 0; w < width; w++) await op(w); // warm-up: one each
      let done = 0;
      const latencies: number[] = [];
      const until = performance.now() + seconds * 1000;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: width }, async (_, w) => {
          while (performance.now() < until) {
            const t0 = performance.now();
            await op(w);
            latencies.push(performance.now() - t0);
            done++;
          }
        }),
      );
      const rate = done / ((performance.now() - started) / 1000);
      latencies.sort((a, b) => a - b);
      console.log(`   ${label.padEnd(58)} ${rate.toFixed(1).padStart(7)}/s   p50 ${latencies[Math.floor(latencies.length / 2)].toFixed(0)} ms   p99 ${latencies[Math.floor(latencies.length * 0.99)].toFixed(0)} ms`);
      return rate;
    };

    const subs: string[] = [];
    const baseline = await timed('POST /v1/subscriptions (create-subscription, baseline)', async (w) => {
      const sub = await api<{ id: string; status: string }>('POST', '/v1/subscriptions', { customer: customers[w], items: [{ price: price.id }], payment_information: cardInfo });
      if (sub.status !== 'active') throw new Error(`subscription ${sub.id} is ${sub.status}`);
      subs.push(sub.id);
    });
    const sessions: string[] = [];
    let buyer = 0;
    // Time spent per step (summed over all completions), to see where a completion goes.
    const stepMs = new Map<string, number>();
    const completions = await timed("checkout session + the page's 9 requests (completion)", async () => {
      let last = performance.now();
      const took = (step: string) => {
        const now = performance.now();
        stepMs.set(step, (stepMs.get(step) ?? 0) + (now - last));
        last = now;
      };
      const expect = (step: string, got: { status: number; text: string }, status: number) => {
        if (got.status !== status) throw new Error(`checkout page ${step}: ${got.status} (expected ${status}) ${got.text.slice(0, 200)}`);
        took(step);
      };
      const session = await api<{ id: string; url: string }>('POST', '/v1/checkout_session', { mode: 'subscription', items: [{ price: price.id }] });
      took('POST /v1/checkout_session');
      const path = new URL(session.url).pathname;
      const token = session.url.split('#')[1];
      const browser = benchBrowser(origin);
      expect('GET boot', await browser.get(path), 200);
      expect('POST open', await browser.post(`${path}/open`, { token, locale: 'es-CO' }), 303);
      expect('GET page', await browser.get(path), 200);
      const email = `bench.buyer.${++buyer}.${Date.now()}@example.com`;
      expect('POST email', await browser.post(`${path}/email`, { email, locale: 'es-CO' }), 303);
      expect('GET page (new customer)', await browser.get(path), 200);
      expect('POST customer', await browser.post(`${path}/customer`, { email, name: 'Ana Gómez', document_type: 'CC', document_number: '1020304050', locale: 'es-CO' }), 303);
      expect('GET page (pay)', await browser.get(path), 200);
      expect('POST pay', await browser.post(`${path}/pay`, { ...cardForm, locale: 'es-CO' }), 303);
      const thanks = await browser.get(path);
      expect('GET thank-you', thanks, 200);
      if (!thanks.text.includes('¡Gracias por tu compra!')) throw new Error(`session ${session.id}: no thank-you page`);
      sessions.push(session.id);
    });
    const total = [...stepMs.values()].reduce((x, y) => x + y, 0);
    console.log(`   where a completion's time goes: ${[...stepMs].map(([k, v]) => `${k} ${((v / total) * 100).toFixed(0)} %`).join(', ')}`);
    console.log(`   checkout completion / create-subscription throughput ratio: ${(completions / baseline).toFixed(2)}`);
    // Check: every completion is a paid session whose subscription is active.
    let ok = 0;
    for (const id of sessions) {
      const s = await api<{ status: string; payment_status: string; subscription: string }>('GET', `/v1/checkout_session/${id}`);
      const sub = await api<{ status: string }>('GET', `/v1/subscriptions/${s.subscription}`);
      if (s.status === 'complete' && s.payment_status === 'paid' && sub.status === 'active') ok++;
    }
    console.log(`   check: ${fmt(sessions.length)} completions, ${fmt(ok)} complete + paid with an active subscription: ${ok === sessions.length ? 'OK' : 'FAILED'}`);
    if (ok !== sessions.length) throw new Error('checkout: not every completion is a paid session with an active subscription');
  } finally {
    await app.close();
  }
}

const WEBHOOK_EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 3000);
const WEBHOOK_SECONDS = Number(process.env.BENCH_WEBHOOK_SECONDS ?? 10);

/** A receiver on 127.0.0.1 that answers 200 at once and reports each body to `onBody`. */
async function benchReceiver(onBody: (body: string) => void): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(200).end();
      onBody(Buffer.concat(chunks).toString('utf8'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hooks`, close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }) };
}

async function webhookApp(name: string) {
  // WEBHOOKS=off: the dispatcher is started by hand once the events are in the store.
  const config = { ...loadConfig({ DATA_DIR: join(dir, name), SCHEDULER: 'off', WEBHOOKS: 'off', LOG_LEVEL: 'warn', RATE_LIMIT_MAX: '0' }), role: 'all' as const };
  const app = await createApp({ config });
  const account = await app.get(CommandBus).execute<CreateAccountCommand, CreatedAccount>(new CreateAccountCommand(`Bench ${name}`));
  await app.get(ProjectionEngine).waitFor(account.position);
  const auth = `Basic ${Buffer.from(`${account.test_key}:`).toString('base64')}`;
  const fastify = app.getHttpAdapter().getInstance();
  const inject = async <T>(method: 'GET' | 'POST', url: string, body?: object): Promise<T> => {
    const res = await fastify.inject({ method, url, headers: { authorization: auth, 'content-type': 'application/json' }, payload: body ? JSON.stringify(body) : undefined });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return JSON.parse(res.body) as T;
  };
  return { app, inject, dispatcher: app.get(WebhookDispatcher) };
}

async function deliveryThroughput(endpoints: number): Promise<{ perSecond: number; feedPerSecond: number }> {
  const { app, inject, dispatcher } = await webhookApp(`webhooks-${endpoints}`);
  let received = 0;
  const receiver = await benchReceiver(() => received++);
  try {
    for (let i = 0; i < endpoints; i++) await inject('POST', '/v1/webhook_endpoints', { url: receiver.url, enabled_events: ['product.*'] });
    await bounded(Array.from({ length: WEBHOOK_EVENTS }, (_, i) => i), 16, async (i) => {
      await inject('POST', '/v1/products', { name: `Webhook bench ${i}` });
    });
    // The baseline: the feed's own read of the same events, page by page.
    const feedStarted = performance.now();
    let read = 0;
    let cursor = '';
    for (;;) {
      const page = await inject<{ data: { id: string }[]; has_more: boolean }>('GET', `/v1/events?limit=100&type=product.created${cursor ? `&starting_after=${cursor}` : ''}`);
      read += page.data.length;
      if (!page.has_more) break;
      cursor = page.data[page.data.length - 1].id;
    }
    const feedPerSecond = read / ((performance.now() - feedStarted) / 1000);
    const started = performance.now();
    dispatcher.start();
    const expected = WEBHOOK_EVENTS * endpoints;
    while (received < expected) await new Promise((r) => setTimeout(r, 5));
    const perSecond = expected / ((performance.now() - started) / 1000);
    return { perSecond, feedPerSecond };
  } finally {
    await dispatcher.stop();
    await receiver.close();
    await app.close();
  }
}

async function webhooksBench() {
  console.log(`\n6. Webhooks: ${fmt(WEBHOOK_EVENTS)} product.created events already in the store, delivered to a local receiver answering 200 at once (in-process, embedded stores)`);
  for (const endpoints of [1, 10]) {
    const { perSecond, feedPerSecond } = await deliveryThroughput(endpoints);
    console.log(
      `   ${endpoints === 1 ? 'one endpoint ' : 'ten endpoints'}: ${fmt(perSecond)} deliveries/s (signed POST, attempt recorded) vs the feed's own read of the same events ${fmt(feedPerSecond)} events/s (GET /v1/events pages): ratio ${(perSecond / feedPerSecond).toFixed(2)}`,
    );
  }
  // Latency: a steady 200 events/s, each event's product named by its number; receipt − append start.
  const { app, inject, dispatcher } = await webhookApp('webhooks-latency');
  const sentAt: number[] = [];
  const latencies: number[] = [];
  const receiver = await benchReceiver((body) => {
    const n = Number(/"name":"Latency (\d+)"/.exec(body)?.[1]);
    if (Number.isInteger(n) && sentAt[n] !== undefined) latencies.push(performance.now() - sentAt[n]);
  });
  try {
    await inject('POST', '/v1/webhook_endpoints', { url: receiver.url, enabled_events: ['product.*'] });
    dispatcher.start();
    const total = 200 * WEBHOOK_SECONDS;
    const t0 = performance.now();
    const inflight: Promise<unknown>[] = [];
    for (let i = 0; i < total; i++) {
      const wait = t0 + i * 5 - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      sentAt[i] = performance.now();
      inflight.push(inject('POST', '/v1/products', { name: `Latency ${i}` }));
    }
    await Promise.all(inflight);
    const offered = total / ((performance.now() - t0) / 1000);
    const deadline = performance.now() + 30_000;
    while (latencies.length < total && performance.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    latencies.sort((a, b) => a - b);
    const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
    console.log(
      `   append-to-receipt under ${fmt(offered)} events/s offered for ${WEBHOOK_SECONDS} s (one endpoint): p50 ${pct(50).toFixed(1)} ms, p99 ${pct(99).toFixed(1)} ms (${fmt(latencies.length)}/${fmt(total)} received)`,
    );
  } finally {
    await dispatcher.stop();
    await receiver.close();
    await app.close();
  }
}

/**
 * Deciding on an old subscription costs what it costs on a new one: a `charge` subscription renewed
 * monthly for BENCH_HISTORY_MONTHS (default 120, ten years) by the scheduler, against one created
 * today; the same command (an update of meta_data) timed on each, with this process's memory of the
 * streams dropped before each command (cold: read from the latest snapshot) and kept (warm).
 */
async function historyBench() {
  const months = HISTORY_MONTHS;
  console.log(`\n6. Deciding on a subscription with ${months} months of history vs a new one (in-process, embedded stores)`);
  const start = new Date('2016-01-15T10:00:00.000Z');
  const clock = new FixedClock(start);
  const config = { ...loadConfig({ DATA_DIR: join(dir, 'history'), SCHEDULER: 'off', LOG_LEVEL: 'warn' }), role: 'all' as const };
  const app = await createApp({ config, clock });
  try {
    const engine = app.get(ProjectionEngine);
    const bus = app.get(CommandBus);
    const events = app.get<EventStore>(EVENT_STORE);
    const executor = app.get(AggregateExecutor);
    const scheduler = app.get(Scheduler);
    const fastify = app.getHttpAdapter().getInstance();
    const account = await bus.execute<CreateAccountCommand, CreatedAccount>(new CreateAccountCommand('Bench history'));
    await engine.waitFor(account.position);
    const auth = `Basic ${Buffer.from(`${account.test_key}:`).toString('base64')}`;
    const request = async <T>(method: 'GET' | 'POST', url: string, body?: object): Promise<T> => {
      const res = await fastify.inject({ method, url, headers: { authorization: auth, 'content-type': 'application/json' }, payload: body && JSON.stringify(body) });
      if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
      return JSON.parse(res.body) as T;
    };
    const product = await request<{ id: string }>('POST', '/v1/products', { name: 'Plan History' });
    const price = await request<{ id: string }>('POST', '/v1/prices', {
      product_id: product.id, type: 'recurring', billing_period: 'month', billing_interval: 1, currency: 'COP', unit_price: '49900',
    });
    const customer = await request<{ id: string }>('POST', '/v1/customers', { email: 'history@example.com', name: 'History' });
    const method = await request<{ id: string }>('POST', '/v1/payment_methods/migrate', {
      customer: customer.id, gateway: 'gateway_a', type: 'card', token: 'simtok_approve_history',
      card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2099 }, default: true,
    });
    const ctx: CommandContext = { accountId: account.id, mode: 'test', requestId: null, idempotencyKey: null };
    const monthAfter = (d: Date, n: number) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + n, d.getUTCDate(), d.getUTCHours()));
    const create = async (next: Date) => {
      const body: CreateSubscriptionBody = {
        customer: customer.id, collection_method: 'charge', payment_method: method.id, items: [{ price: price.id }], next_renewal_date: next.toISOString(),
      };
      const created = await bus.execute<CreateSubscriptionCommand, CommandResult>(new CreateSubscriptionCommand(ctx, body, true));
      await engine.waitFor(created.position);
      return created.id;
    };
    const old = await create(monthAfter(start, 1));
    const built = performance.now();
    for (let m = 1; m <= months; m++) {
      const due = monthAfter(start, m);
      clock.set(due);
      await scheduler.runDue({ clock: null }, due);
    }
    const young = await create(monthAfter(clock.now(), 1));
    const oldStream = (await events.readStream(`subscription-${old}`)).length;
    const youngStream = (await events.readStream(`subscription-${young}`)).length;
    const oldDoc = await request<{ status: string; collections_count: number }>('GET', `/v1/subscriptions/${old}`);
    console.log(
      `   history: ${months} monthly renewals by the scheduler in ${((performance.now() - built) / 1000).toFixed(1)} s; the old subscription's stream holds ${fmt(oldStream)} events, the new one's ${fmt(youngStream)}`,
    );
    const ok = oldDoc.status === 'active' && oldDoc.collections_count === months;
    console.log(`   check: the old subscription is active with ${fmt(oldDoc.collections_count)} collections (expected ${fmt(months)}): ${ok ? 'OK' : 'FAILED'}`);
    if (!ok) throw new Error('history: the old subscription was not renewed every month');

    const rounds = 300;
    const time = async (id: string, i: number, cold: boolean) => {
      if (cold) executor.forgetAll();
      const t0 = performance.now();
      await bus.execute(new UpdateSubscriptionCommand(ctx, id, { meta_data: { round: String(i) } }));
      return performance.now() - t0;
    };
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    for (const cold of [true, false]) {
      const o: number[] = [];
      const y: number[] = [];
      for (let i = 0; i < 20; i++) await time(i % 2 ? old : young, i, cold); // warm-up
      for (let i = 0; i < rounds; i++) {
        o.push(await time(old, i, cold));
        y.push(await time(young, i, cold));
      }
      const [mo, my] = [median(o), median(y)];
      const label = cold ? 'cold (memory dropped before each command: latest snapshot + tail)' : 'warm (state kept in memory)';
      console.log(`   ${label}: old ${mo.toFixed(3)} ms, new ${my.toFixed(3)} ms (median of ${rounds})`);
      target(`update on a ${months}-month-old subscription / on a new one, ${cold ? 'cold' : 'warm'}`, mo / my, 1.2, 'lower');
    }
  } finally {
    await app.close();
  }
}

const run = (name: string) => ONLY.length === 0 || ONLY.includes(name);
/** A section whose correctness check fails is recorded and the others still run. */
async function section(name: string, body: () => Promise<unknown>): Promise<void> {
  if (!run(name)) return;
  try {
    await body();
  } catch (error) {
    failures.push(`${name}: ${(error as Error).message}`);
    console.log(`   FAILED: ${(error as Error).stack ?? error}`);
  }
}
/** A child process of the billing run (see billingRunBench): runs its phase, reports on its last line, and ends. */
const CHILD = process.env.BENCH_BILLING_CHILD;
if (CHILD) {
  rmSync(dir, { recursive: true, force: true });
  const n = Number(process.env.BENCH_BILLING_RENEWALS);
  const dataDir = process.env.BENCH_BILLING_DATA_DIR!;
  const result = CHILD === 'seed' ? await billingSeedChild(n, dataDir) : await billingRunChild(n, dataDir);
  console.log(`@@result ${JSON.stringify(result)}`);
  process.exit(0);
}
try {
  await section('append', appendBench);
  await section('rebuild', rebuildBench);
  await section('http', httpBench);
  await section('subscriptions', subscriptionBench);
  await section('billing', async () => {
    for (const [i, n] of RENEWALS_LIST.entries()) await billingRunBench(n, `5${RENEWALS_LIST.length > 1 ? 'abcdefgh'[i] : ''}.`);
    if (billingPeaks.size >= 2) {
      const peaks = [...billingPeaks.values()];
      target('billing run peak rss: largest / smallest run', Math.max(...peaks) / Math.min(...peaks), 1.2, 'lower');
    }
  });
  await section('checkout', checkoutBench);
  await section('webhooks', webhooksBench);
  await section('history', historyBench);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log('\nTargets (ratios measured in this run; reported, not asserted):');
for (const t of targets) console.log(`   ${t.pass ? 'PASS' : 'FAIL'}  ${t.name}: ${t.value.toFixed(3)} (${t.better === 'higher' ? '≥' : '≤'} ${t.bound})`);
if (failures.length) {
  console.log(`\nCorrectness checks FAILED:\n${failures.map((f) => `   ${f}`).join('\n')}`);
  process.exitCode = 1;
} else {
  console.log('\nEvery correctness check: OK');
}
