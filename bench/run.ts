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
 */
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NewEvent } from '../libs/event-store/src/event-store.port.js';
import { SqliteEventStore } from '../libs/event-store/src/sqlite-event-store.js';
import { SqliteReadStore } from '../libs/read-store/src/sqlite-read-store.js';
import { allProjections } from '../projections/index.js';
import { ProjectionEngine } from '../projections/runtime/projection-engine.js';

const COMMITS = Number(process.env.BENCH_COMMITS ?? 3000);
const REBUILD_EVENTS = Number(process.env.BENCH_REBUILD_EVENTS ?? 100_000);
const CONCURRENCY = 64;
const CONNECTIONS = 32;

const dir = mkdtempSync(join(tmpdir(), 'billing-bench-'));
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

function event(i: number): NewEvent {
  return {
    id: randomUUID(),
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

/** fsync times vary from run to run: each figure is the median of three runs. */
async function median(run: (i: number) => number | Promise<number>): Promise<number> {
  const values: number[] = [];
  for (let i = 0; i < 3; i++) values.push(await run(i));
  return values.sort((a, b) => a - b)[1];
}

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
        id: randomUUID(),
        type: 'product.created',
        data: {
          id, account_id: 'acct_bench', is_test: p % 2 === 0, created_at: created, name: `Product ${p}`, description: null, status: 'active',
          product_merchant_id: null, product_invoicing_id: null, product_shopA_id: null, product_shopB_id: null, image: null,
          invoice_settings: { invoice_tax_id: null, invoice_tax_percentage: '19' }, meta_data: {},
        },
        metadata: { account_id: 'acct_bench', mode: p % 2 === 0 ? 'test' : 'live', occurred_at: created },
      },
      ...Array.from({ length: 9 }, (_, u) => ({
        id: randomUUID(),
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
  const store = new SqliteReadStore(join(dir, 'rebuild-read.sqlite'));
  const engine = new ProjectionEngine(allProjections(), events, store);
  await engine.init();
  const rssBefore = process.memoryUsage().rss;
  const started = performance.now();
  const results: { name: string; seconds: number }[] = [];
  for (const p of engine.projections) {
    const t0 = performance.now();
    await engine.rebuild(p.name);
    results.push({ name: p.name, seconds: (performance.now() - t0) / 1000 });
  }
  const seconds = (performance.now() - started) / 1000;
  for (const r of results.filter((x) => ['products', 'event_feed'].includes(x.name))) {
    console.log(`   ${r.name.padEnd(12)} ${fmt(total / r.seconds).padStart(9)} events/s  (${r.seconds.toFixed(2)} s)`);
  }
  console.log(`   all ${engine.projections.length} projections: ${fmt(total / seconds)} events/s per full pass of ${fmt(total)} events, ${seconds.toFixed(2)} s in all`);
  console.log(`   rss ${fmt((process.memoryUsage().rss - rssBefore) / 1048576)} MiB above the start of the rebuild`);
  await events.close();
  await store.close();
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
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: join(dir, name), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const key = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start:\n${out}`)), 30_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const found = /test: (sk_test_\w+)/.exec(out);
      if (found && out.includes('listening on')) {
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

/** The baseline of an HTTP section: an authenticated GET of one product, after a 2 s warm-up. */
async function getBaseline(service: Service): Promise<autocannon.Result> {
  const { id } = await call<{ id: string }>(service, '/v1/products', { name: 'Bench' });
  const url = `${service.url}/v1/products/${id}`;
  await load({ url, headers: service.headers, duration: 2, title: 'warm-up' });
  return load({ url, headers: service.headers, title: 'GET' });
}

/** Prints a write against the GET baseline measured on the same server in the same run. */
function compare(get: autocannon.Result, name: string, label: string, write: autocannon.Result) {
  row('GET /v1/products/{id} (baseline)', get);
  row(label, write);
  console.log(`   ${name} / GET throughput ratio: ${(write.requests.average / get.requests.average).toFixed(2)}`);
}

async function httpBench() {
  console.log(`\n3. HTTP on the embedded default (service in its own process, LOG_LEVEL=warn, ${CONNECTIONS} connections, 5 s each)`);
  const service = await startService('http-products');
  try {
    const get = await getBaseline(service);
    const create = await load({
      url: `${service.url}/v1/products`, method: 'POST', headers: service.headers, body: JSON.stringify({ name: 'Plan Oro', meta_data: { sku: 'GOLD' } }), title: 'create',
    });
    compare(get, 'create', 'POST /v1/products (create)', create);
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
  console.log(`\n4. create-subscription (charge, approved card) over HTTP (a fresh service, same settings, ${CONNECTIONS} connections, 5 s each)`);
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
    const get = await getBaseline(service);
    const answered: Subscription[] = [];
    let connection = 0;
    const create = await load({
      url: `${service.url}/v1/subscriptions`,
      method: 'POST',
      headers: service.headers,
      body: setups[0],
      setupClient: (client) => client.setBody(setups[connection++ % setups.length]),
      requests: [{ onResponse: (status, body) => status < 300 && answered.push(JSON.parse(body) as Subscription) }],
      title: 'create-subscription',
    });
    compare(get, 'create-subscription', 'POST /v1/subscriptions (create-subscription)', create);

    // Requests still in flight when the load stops are cut off client-side but complete on the server.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const stored = new Map((await listAll<Subscription>(service, '/v1/subscriptions')).map((s) => [s.id, s.status]));
    const activeNow = answered.filter((s) => stored.get(s.id) === 'active').length;
    const answeredActive = answered.filter((s) => s.status === 'active').length;
    const distinct = new Set(answered.map((s) => s.id)).size;
    const allActive = [...stored.values()].filter((status) => status === 'active').length;
    const ok = answered.length === create['2xx'] && distinct === answered.length && answeredActive === distinct && activeNow === distinct;
    console.log(
      `   check: ${fmt(create['2xx'])} 2xx answers, ${fmt(distinct)} distinct subscriptions, ${fmt(answeredActive)} answered active,` +
        ` ${fmt(activeNow)} active in GET /v1/subscriptions afterwards: ${ok ? 'OK' : 'FAILED'}`,
    );
    console.log(
      `   (the store holds ${fmt(stored.size)}, ${fmt(allActive)} active: ${fmt(stored.size - distinct)} more from requests cut off client-side when the load stopped)`,
    );
    if (!ok) throw new Error('create-subscription: not every 2xx created an active subscription');
  } finally {
    await service.stop();
  }
}

try {
  await appendBench();
  await rebuildBench();
  await httpBench();
  await subscriptionBench();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
