import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { eventIdFromUuid } from '#shared/ids.js';
import { publicResourceProjections } from '#projections/public-resources.js';

/**
 * What the fault tests (SIGKILL of a child service, restart, then invariants) share: an HTTP client
 * with a secret key, a burst of keyed requests that kills the service part-way, the retry loop, and
 * read-only looks into the stores of a data directory.
 */

export type Call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<{ status: number; body: any }>;

/** fetch against `url()` (read at each call, so a restarted child's new port is used) as `key`. */
export function apiClient(url: () => string, key: string): Call {
  return async (method, path, body, headers = {}) => {
    const res = await fetch(url() + path, {
      method,
      headers: { Authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}`, ...(body ? { 'Content-Type': 'application/json' } : {}), ...headers },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json().catch(() => null)) as any };
  };
}

/** A monthly COP price and a customer: the body of a `charge` subscription paid with a new card. */
export async function chargeSubscriptionBody(api: Call, name = 'Crash'): Promise<Record<string, unknown>> {
  const product = (await api('POST', '/v1/products', { name: `${name} plan` })).body;
  const price = (await api('POST', '/v1/prices', { product_id: product.id, type: 'recurring', billing_period: 'month', billing_interval: 1, unit_price: '49900', currency: 'COP' })).body;
  const customer = (await api('POST', '/v1/customers', { email: `${name.toLowerCase()}@example.com`, name })).body;
  return {
    customer: customer.id,
    items: [{ price: price.id }],
    collection_method: 'charge',
    payment_information: { gateway: 'gateway_a', type: 'card', card: { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '123' } },
  };
}

export interface Burst {
  /** Request index → the id answered with 200 before the kill. */
  answered: Map<number, string>;
  /** Requests sent (some unanswered: the process died under them). */
  sent: number;
  killed: boolean;
}

/**
 * Sends `requests` requests (`send(i)`), `concurrency` at a time, and calls `kill()` once `killAt`
 * have been sent; stops sending after the kill. A request the kill interrupted counts as sent and
 * unanswered.
 */
export async function burstWithKill(options: {
  requests: number;
  concurrency: number;
  killAt: number;
  send: (i: number) => Promise<{ status: number; body: any }>;
  kill: () => Promise<void>;
}): Promise<Burst> {
  const answered = new Map<number, string>();
  let sent = 0;
  let killed = false;
  const worker = async () => {
    while (sent < options.requests && !killed) {
      const i = sent++;
      try {
        const res = await options.send(i);
        if (res.status === 200) answered.set(i, res.body.id);
      } catch {
        // the process was killed under this request
      }
      if (!killed && sent >= options.killAt) {
        killed = true;
        await options.kill();
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  return { answered, sent, killed };
}

/** Retries `send()` until it answers 200 (every 100 ms, at most `attempts` times); returns the body and how many calls it took. */
export async function retryUntil200(send: () => Promise<{ status: number; body: any }>, describe: () => string, attempts = 200): Promise<{ body: any; calls: number }> {
  for (let attempt = 1; ; attempt++) {
    const res = await send();
    if (res.status === 200) return { body: res.body, calls: attempt };
    if (attempt >= attempts) throw new Error(`still ${res.status} ${JSON.stringify(res.body)} after ${attempt} calls\n${describe()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Runs `query` on a read-only connection to one of the data directory's stores. */
export function inStore<T>(dataDir: string, store: 'events' | 'read-models', query: (db: Database.Database) => T): T {
  const db = new Database(join(dataDir, `${store}.sqlite`), { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 10000');
    return query(db);
  } finally {
    db.close();
  }
}

export const countEvents = (dataDir: string, type: string): number =>
  inStore(dataDir, 'events', (db) => (db.prepare('SELECT COUNT(*) AS n FROM events WHERE type = ?').get(type) as { n: number }).n);

export const headSeq = (dataDir: string): number => inStore(dataDir, 'events', (db) => (db.prepare('SELECT COALESCE(MAX(seq), 0) AS n FROM events').get() as { n: number }).n);

/** Every read-model table's rows (documents as stored, byte for byte) and the checkpoints, in a stable order. */
export function readModelSnapshot(dataDir: string): Record<string, unknown[]> {
  return inStore(dataDir, 'read-models', (db) => {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[];
    const out: Record<string, unknown[]> = {};
    for (const { name } of tables) out[name] = db.prepare(`SELECT * FROM "${name}" ORDER BY 1`).all();
    return out;
  });
}

/**
 * Like readModelSnapshot, for read models too large to hold as rows (a billing run's hundreds of MB):
 * per table, each row's key → SHA-256 of the row exactly as stored (so equal digests mean
 * byte-identical documents and checkpoints), read row by row.
 */
const OPERATIONAL_TABLES = new Set(['rm_leases']);

export function readModelDigest(dataDir: string): Record<string, Map<string, string>> {
  return inStore(dataDir, 'read-models', (db) => {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[];
    const out: Record<string, Map<string, string>> = {};
    for (const { name } of tables) {
      // Operational state, not read models: the workers' leases (holders, epochs, expiries change on
      // every start) and the followers' own positions (`invoicing:collections`, written when due).
      if (OPERATIONAL_TABLES.has(name)) continue;
      const rows = new Map<string, string>();
      for (const row of db.prepare(`SELECT * FROM "${name}" ORDER BY 1`).iterate() as Iterable<Record<string, unknown>>) {
        const key = String(Object.values(row)[0]);
        if (name === 'checkpoints' && key.includes(':')) continue;
        rows.set(key, createHash('sha256').update(JSON.stringify(row)).digest('hex'));
      }
      out[name] = rows;
    }
    return out;
  });
}

/** The differences between two digests: per table, row counts and the first keys that differ. Empty: byte-identical. */
export function digestDifferences(a: Record<string, Map<string, string>>, b: Record<string, Map<string, string>>): string[] {
  const out: string[] = [];
  for (const table of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
    const x = a[table] ?? new Map<string, string>();
    const y = b[table] ?? new Map<string, string>();
    const differing = [...new Set([...x.keys(), ...y.keys()])].filter((id) => x.get(id) !== y.get(id));
    if (differing.length) out.push(`${table}: ${x.size} vs ${y.size} rows, ${differing.length} differ, e.g. ${differing.slice(0, 5).join(', ')}`);
  }
  return out;
}

/**
 * The differences between two snapshots, table by table: counts and the first few differing rows (a
 * plain toEqual on hundreds of thousands of documents would print an unreadable diff). Empty: equal.
 */
export function snapshotDifferences(a: Record<string, unknown[]>, b: Record<string, unknown[]>, ignore: string[] = []): string[] {
  const out: string[] = [];
  const hash = (rows: unknown[]) => createHash('sha256').update(JSON.stringify(rows)).digest('hex');
  for (const table of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
    if (ignore.includes(table)) continue;
    const x = a[table] ?? [];
    const y = b[table] ?? [];
    if (hash(x) === hash(y)) continue;
    const byId = (rows: unknown[]) => new Map(rows.map((r) => [String(Object.values(r as object)[0]), JSON.stringify(r)]));
    const mx = byId(x);
    const my = byId(y);
    const differing = [...new Set([...mx.keys(), ...my.keys()])].filter((id) => mx.get(id) !== my.get(id));
    out.push(`${table}: ${x.length} vs ${y.length} rows, ${differing.length} differ, e.g. ${differing.slice(0, 3).map((id) => `\n  ${mx.get(id) ?? '(absent)'}\n  ${my.get(id) ?? '(absent)'}`).join('')}`);
  }
  return out;
}

/** Event types whose subject is a public object: each such event has one entry in the `evt_` feed. */
const FEED_PREFIXES = new Set(publicResourceProjections().map((p) => p.object ?? p.category!));

/**
 * The event store against the feed read model: the appended events that belong in the feed, the ones
 * missing from it, feed entries without their event (or with another type or position), and feed ids
 * seen twice (impossible with the id as primary key, checked anyway).
 */
export function feedAgainstEvents(dataDir: string): { eligible: number; entries: number; missing: string[]; strays: string[]; duplicates: number } {
  const events = inStore(dataDir, 'events', (db) => db.prepare('SELECT event_id, type, seq, metadata FROM events ORDER BY seq').all() as { event_id: string; type: string; seq: number; metadata: string }[]);
  const feed = inStore(dataDir, 'read-models', (db) => db.prepare("SELECT id, json_extract(doc, '$.type') AS type FROM rm_events").all() as { id: string; type: string }[]);
  const expected = new Map<string, string>();
  for (const e of events) {
    const meta = JSON.parse(e.metadata) as { account_id?: string; mode?: string };
    if (meta.account_id && meta.mode && FEED_PREFIXES.has(e.type.slice(0, e.type.indexOf('.')))) expected.set(eventIdFromUuid(e.event_id), e.type);
  }
  const seen = new Map<string, number>();
  for (const f of feed) seen.set(f.id, (seen.get(f.id) ?? 0) + 1);
  return {
    eligible: expected.size,
    entries: feed.length,
    missing: [...expected.keys()].filter((id) => !seen.has(id)),
    strays: feed.filter((f) => expected.get(f.id) !== f.type).map((f) => f.id),
    duplicates: [...seen.values()].filter((n) => n > 1).length,
  };
}
