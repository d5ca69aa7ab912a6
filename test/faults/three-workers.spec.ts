import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { webhookPartition } from '#platform/leases.js';
import { type ChildService, startChild, until } from '../support/child-service.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { report } from '../support/test-output.js';

/**
 * Issue 32 §5: three worker processes (ROLE=all) and one API process (ROLE=api, the load's target) on
 * one embedded DATA_DIR share the background work by leases (libs/platform/src/leases.ts). Under a
 * steady load — product writes (each waits for the projections), a webhook burst, and scheduled
 * subscriptions whose start dates fall due one after another in real time (each start is a deadline
 * of the scheduler, creates a `collect` collection that the mail follower mails and that invoicing
 * invoices at once, `first_payment_invoicing: create`) — workers are killed with SIGKILL (their
 * leases are not handed back: they expire): first the one holding the endpoint's webhook partition
 * mid-burst, then the one holding the projections, then, while deadlines are still falling due, the
 * holder of each of `scheduler`, `mail` and `invoicing` that no kill has taken over yet. A new worker
 * is started after each kill (a restart policy), so the work keeps being shared.
 *
 * Then: every webhook event arrives, duplicates only from the attempts a killed worker had in flight
 * (at most WEBHOOK_CONCURRENCY per kill of the partition's holder); every write is answered within the
 * takeover bound (TTL + one renewal) plus slack for its own time on a loaded machine; every
 * subscription started once (one collection, one `subscription` start), every collection mailed
 * once, every collection invoiced once and that invoice issued once.
 */
const TTL_MS = 3000;
const RENEW_MS = 500;
const CONCURRENCY = 10;
const EVENTS = 120;
const SUBSCRIPTIONS = 24;
/** Slack on a loaded 2-core machine for a unit's start after its takeover (the pipeline's catch-up) and a write's own time. */
const SLACK_MS = 5000;
const BOUND_MS = TTL_MS + RENEW_MS + SLACK_MS;
const ENV = {
  EVENTSTORE_URL: '',
  MONGO_URL: '',
  RATE_LIMIT_MAX: '0',
  LEASE_TTL_MS: String(TTL_MS),
  LEASE_RENEW_MS: String(RENEW_MS),
  WEBHOOK_POLL_MS: '50',
  WEBHOOK_CONCURRENCY: String(CONCURRENCY),
  SCHEDULER: 'on',
  SCHEDULER_POLL_MS: '200',
  INVOICING_FOLLOWER: 'on',
  INVOICING_FOLLOWER_POLL_MS: '200',
  INVOICING_FOLLOWER_GRACE_MS: '500',
  LOG_LEVEL: 'warn',
};
/** The units of a worker (SCHEDULER on): projections, scheduler, mail, invoicing, idempotency-prune and 8 webhook partitions. */
const UNITS = 13;

interface Health {
  leases: { worker: string | null; held_here: string[]; units: { unit: string; holder: string | null; epoch: number; held?: boolean }[]; workers: { worker: string; live?: boolean; units: string[] }[] };
}
const health = async (s: ChildService) => (await (await fetch(`${s.url}/health`)).json()) as Health;


test('three workers, SIGKILL of the holders of a webhook partition, the projections, the scheduler, mail and invoicing under load: every event delivered, every write answered in the bound, every deadline, e-mail and invoice once', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'three-workers-'));
  const r = await new WebhookReceiver().up();
  r.respond = () => ({ status: 200, delayMs: 100 }); // latency: attempts are in flight and a backlog builds
  const workers: ChildService[] = [];
  const all: ChildService[] = [];
  const spawnWorker = async () => {
    const w = await startChild(null, dataDir, ENV);
    workers.push(w);
    all.push(w);
    return w;
  };
  let api: ChildService | null = null;
  try {
    const first = await spawnWorker();
    const key = first.testKey!;
    expect(key).toMatch(/^sk_test_/);
    const auth = { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}`, 'content-type': 'application/json' };
    api = await startChild(null, dataDir, { ...ENV, ROLE: 'api' });
    all.push(api);
    const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
      const res = await fetch(`${api!.url}${path}`, { method: 'POST', headers: { ...auth, ...headers }, body: JSON.stringify(body) });
      const json = (await res.json()) as any;
      if (res.status !== 200) throw new Error(`POST ${path} answered ${res.status}: ${JSON.stringify(json)}`);
      return json;
    };
    const get = async (path: string) => {
      const res = await fetch(`${api!.url}${path}`, { headers: auth });
      const json = (await res.json()) as any;
      if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${JSON.stringify(json)}`);
      return json;
    };
    const endpoint = (await post('/v1/webhook_endpoints', { url: r.url, enabled_events: ['product.*'] })) as { id: string; secret: string };
    r.secrets = [endpoint.secret];
    const partition = `webhooks/${webhookPartition(endpoint.id)}`;
    expect((await post('/v1/account/invoicing_settings', { enabled: true })).enabled).toBe(true);
    const product = await post('/v1/products', { name: 'Plan' });
    const price = await post('/v1/prices', { product_id: product.id, type: 'recurring', billing_period: 'month', billing_interval: 1, unit_price: '49900', currency: 'COP' });

    await spawnWorker();
    await spawnWorker();
    await until('the units split among the three workers', () => health(api!), (h) => h.leases.workers.filter((w) => w.units.length > 0).length === 3 && h.leases.workers.every((w) => w.units.length <= Math.ceil(UNITS / 3)), 30_000);

    // Deadlines: scheduled subscriptions starting one after another over the kills to come.
    const subs: { id: string; customer: string; email: string }[] = [];
    const startsAt = Date.now() + 4000;
    for (let i = 0; i < SUBSCRIPTIONS; i++) {
      const email = `three.workers.${i}.${Date.now()}@example.com`;
      const customer = await post('/v1/customers', { email, name: `Cliente ${i}` });
      const schedule_date = new Date(startsAt + i * 1000).toISOString();
      const sub = await post('/v1/subscriptions', { customer: customer.id, items: [{ price: price.id }], collection_method: 'collect', days_until_due: 5, schedule_date, first_payment_invoicing: 'create' });
      expect(sub.status).toBe('scheduled');
      subs.push({ id: sub.id, customer: customer.id, email });
    }

    // The steady load: product writes through the API process, 10 at a time, each one's answer timed.
    const latencies: number[] = [];
    const statuses = new Map<number, number>();
    let sent = 0;
    let stopLoad = false;
    const load = (async () => {
      while (!stopLoad || sent < EVENTS) {
        const batch = Array.from({ length: 10 }, async () => {
          const name = `Burst ${sent++}`;
          const t0 = Date.now();
          const res = await fetch(`${api!.url}/v1/products`, { method: 'POST', headers: { ...auth, 'Idempotency-Key': `three-${name}` }, body: JSON.stringify({ name }) });
          await res.arrayBuffer();
          latencies.push(Date.now() - t0);
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        });
        await Promise.all(batch);
        await new Promise((res) => setTimeout(res, 100)); // steady, not a flood
      }
    })();

    const takeovers: { unit: string; ms: number; units: string[]; started: number }[] = [];
    /** Scheduled starts run so far (each made its subscription's collection). */
    const started = async () => ((await get('/v1/collections?limit=100')).data as unknown[]).length;
    const coveredByKill = new Set<string>();
    /** Kills the live worker holding `unit` (SIGKILL), waits for another to hold it (epoch + 1), starts a replacement. */
    const killHolderOf = async (unit: string) => {
      const h = await health(api!);
      const lease = h.leases.units.find((u) => u.unit === unit)!;
      const victim = await (async () => {
        for (const w of workers) if ((await health(w)).leases.worker === lease.holder) return w;
        throw new Error(`no live worker holds ${unit}: ${JSON.stringify(lease)}`);
      })();
      const held = h.leases.workers.find((w) => w.worker === lease.holder)?.units ?? [];
      const startedAtKill = await started();
      const killedAt = Date.now();
      await victim.kill('SIGKILL');
      workers.splice(workers.indexOf(victim), 1);
      const taken = await until(`${unit} taken over`, () => health(api!), (x) => x.leases.units.some((u) => u.unit === unit && u.holder !== lease.holder && u.holder !== null && u.epoch === lease.epoch + 1), BOUND_MS + 10_000);
      const ms = Date.now() - killedAt;
      expect(taken.leases.units.find((u) => u.unit === unit)!.epoch).toBe(lease.epoch + 1);
      takeovers.push({ unit, ms, units: held, started: startedAtKill });
      for (const u of held) coveredByKill.add(u);
      await spawnWorker();
    };

    // 1. Mid-burst: the holder of the endpoint's partition.
    await r.until(() => r.received.length >= 20, 60_000, 'the burst to be delivered');
    const atFirstKill = r.received.length;
    await killHolderOf(partition);
    // 2. The holder of the projections (every write waits for them).
    await killHolderOf('projections');
    // 3. While deadlines still fall due: the holders of the scheduler, mail and invoicing, unless a kill already moved them.
    for (const unit of ['scheduler', 'mail', 'invoicing']) if (!coveredByKill.has(unit)) await killHolderOf(unit);
    stopLoad = true;
    await load;
    expect(takeovers.every((t) => t.ms < BOUND_MS)).toBe(true);
    for (const unit of [partition, 'projections', 'scheduler', 'mail', 'invoicing']) expect(coveredByKill).toContain(unit);
    // The scheduler's holder died with deadlines still to fall due: the ones after it were run by its successor.
    expect(takeovers.find((t) => t.units.includes('scheduler'))!.started).toBeLessThan(SUBSCRIPTIONS);

    // Every write answered, with 200, within the takeover bound plus its own time.
    expect(Object.fromEntries(statuses)).toEqual({ 200: sent });
    const slowest = Math.max(...latencies);
    expect(slowest).toBeLessThan(BOUND_MS);

    // Every deadline run once: each subscription started once — one collection, one start event.
    await until('every subscription started', async () => Promise.all(subs.map((s) => get(`/v1/subscriptions/${s.id}`))), (list) => list.every((s) => s.status === 'active'), 60_000);
    const deadlineRuns: number[] = [];
    for (const s of subs) {
      const cols = (await get(`/v1/collections?subscription=${s.id}&limit=100`)).data as { id: string }[];
      expect(cols).toHaveLength(1);
      const types = ((await get(`/v1/events?object_id=${s.id}&limit=100`)).data as { type: string }[]).map((e) => e.type);
      const dup = types.filter((t, i) => types.indexOf(t) !== i);
      expect({ subscription: s.id, duplicated: dup }).toEqual({ subscription: s.id, duplicated: [] });
      deadlineRuns.push(cols.length);
    }

    // Every e-mail sent once: one `collection.sent` message per collection, to its customer.
    const collections = new Map<string, string>(); // collection → subscription's customer e-mail
    for (const s of subs) collections.set((await get(`/v1/subscriptions/${s.id}`)).latest_collection, s.email);
    const mails = await until('every collection mailed', async () => (await get('/v1/test_helpers/outbox?kind=collection.sent&limit=100')).data as { to: string; refs: { collection: string; event: string } }[], (m) => new Set(m.map((x) => x.refs.collection)).size >= SUBSCRIPTIONS, 60_000);
    const mailsPer = new Map<string, number>();
    for (const m of mails) mailsPer.set(m.refs.collection, (mailsPer.get(m.refs.collection) ?? 0) + 1);
    expect([...mailsPer.keys()].sort()).toEqual([...collections.keys()].sort());
    expect([...mailsPer.values()].every((n) => n === 1)).toBe(true);
    for (const m of mails) expect(m.to).toBe(collections.get(m.refs.collection));

    // Every invoice issued once: one fiscal invoice per collection, issued, with one invoice.created and one invoice.issued.
    let invoiceDuplicates = 0;
    for (const s of subs) {
      const invoices = (await until(`the invoice of ${s.id}`, async () => (await get(`/v1/invoices?customer=${s.customer}&limit=100`)).data as { id: string; collection: string; issuance: { status: string } }[], (list) => list.length > 0 && list.every((i) => i.issuance?.status === 'issued'), 60_000));
      invoiceDuplicates += invoices.length - 1;
      expect(invoices).toHaveLength(1);
      const [invoice] = invoices;
      const types = ((await get(`/v1/events?object_id=${invoice.id}&limit=100`)).data as { type: string }[]).map((e) => e.type);
      expect(types.filter((t) => t === 'invoice.created')).toHaveLength(1);
      expect(types.filter((t) => t === 'invoice.issued')).toHaveLength(1);
    }

    // Every webhook event delivered at least once; duplicates only from a killed holder's attempts in flight.
    const feed: string[] = [];
    let cursor = '';
    for (;;) {
      const page = (await get(`/v1/events?limit=100&type=product.created${cursor ? `&starting_after=${cursor}` : ''}`)) as { data: { id: string }[]; has_more: boolean };
      feed.push(...page.data.map((e) => e.id));
      if (!page.has_more) break;
      cursor = page.data[page.data.length - 1].id;
    }
    expect(feed.length).toBeGreaterThanOrEqual(EVENTS + 1);
    await r.until(() => {
      const got = new Set(r.ids());
      return feed.every((id) => got.has(id));
    }, 60_000, 'every event after the takeovers');
    await new Promise((res) => setTimeout(res, 500)); // anything still to come would be a duplicate
    const counts = new Map<string, number>();
    for (const id of r.ids()) counts.set(id, (counts.get(id) ?? 0) + 1);
    const duplicates = [...counts.values()].reduce((sum, n) => sum + n - 1, 0);
    expect([...counts.keys()].sort()).toEqual([...feed].sort());
    const partitionKills = takeovers.filter((t) => t.units.includes(partition)).length;
    expect(duplicates).toBeLessThanOrEqual(CONCURRENCY * partitionKills);
    expect(r.received.every((x) => x.verifiedWith === endpoint.secret)).toBe(true);

    report(
      `[three workers] ${takeovers.length} SIGKILLs (${takeovers.map((t) => `${t.unit} holder [${t.units.join(' ')}] taken over in ${t.ms} ms, ${t.started} starts run before`).join('; ')}; TTL ${TTL_MS} ms, renewal ${RENEW_MS} ms); ` +
        `${sent} writes, slowest answered in ${slowest} ms (bound ${BOUND_MS} ms); ${feed.length} webhook events, ${atFirstKill} received at the first kill, ${duplicates} duplicates (bound ${CONCURRENCY} per partition kill); ` +
        `${SUBSCRIPTIONS} scheduled starts run once each, ${mails.length} e-mails for ${collections.size} collections, ${invoiceDuplicates} duplicate invoices`,
    );
  } finally {
    for (const p of all) await p.kill('SIGKILL');
    await r.close();
  }
}, 240_000);
