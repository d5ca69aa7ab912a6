import fc from 'fast-check';
import { Decimal } from 'decimal.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import { card } from '#test/support/billing-fixtures.js';
import { advance, clockAndCustomer, decliningMethod } from '#test/support/lifecycle.js';
import { startTestApp, type TestApp } from '#test/support/test-app.js';

/**
 * Issue 31 §3, property: the revenue projection's MRR is what the subscriptions say it is, at any
 * instant, stays put for a past instant, and survives a rebuild.
 *
 * Each run builds a random history on one test clock in a fresh account (so the account's reports
 * hold that run's subscriptions only): a few subscriptions on monthly, weekly, quarterly and yearly
 * COP prices with quantities, some with a percent or amount discount for N collections, charged to an
 * approving card, collected (paid only by a step), or charged to a card that declines from the first renewal;
 * then random steps: clock advances of random lengths, cancellations now and at period end, pause and
 * resume, a quantity change, a price change (to the other price of the same frequency), paying the
 * latest collection out of band; and, between steps, reports asked for a random past
 * instant. Then:
 *   1. at random instants T of the history (the instants of the steps themselves among them), the
 *      report's MRR (GET /v1/reports/mrr for T's day, as_of=T) equals the sum over every subscription
 *      of the account of its MRR worked out here from GET /v1/subscriptions/{id}?as_of=T, by the
 *      definition in words (docs/revenue-analytics.md), without libs/analytics;
 *   2. every report asked during the history for a past as_of is, at its end, the same JSON;
 *   3. after rebuilding the `revenue` projection from the first event, every report asked is the same.
 *
 * Run time: a run is short (a few advances of up to 40 days, ~0.2–0.5 s); FC_RUNS (default 60) keeps
 * the test around 20–30 s, the rebuild included. FC_SEED / FC_RUNS reproduce or widen a search (200
 * and 300 runs found no difference). An as_of equal to the clock's current instant is not "past":
 * a request made then is stamped at that same instant, so the reports asked mid-history are for
 * instants strictly before the clock's.
 */
const NUM_RUNS = Number(process.env.FC_RUNS ?? 60);

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

type Client = ReturnType<TestApp['as']>;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const START = '2027-03-01T14:00:00.000Z';

// ---------------------------------------------------------------------------------------------
// The definition, computed independently of libs/analytics.

const COUNTED = new Set(['active', 'past_due', 'pending_cancel']);
const halfUp = (d: Decimal) => d.toDecimalPlaces(2, Decimal.ROUND_HALF_UP);

/** Months in one billing cycle, as the factor a cycle's amount is multiplied by. */
function monthly(period: string, interval: number): Decimal {
  const n = Math.max(1, interval);
  switch (period) {
    case 'day':
      return new Decimal(365).div(12).div(n);
    case 'week':
      return new Decimal(52).div(12).div(n);
    case 'month':
      return new Decimal(1).div(n);
    case 'year':
      return new Decimal(1).div(12 * n);
  }
  throw new Error(`unknown billing period ${period}`);
}

/** One subscription's MRR (COP, 2 decimals) from its document as it stood at an instant. */
export function independentMrr(sub: any): Decimal {
  if (!COUNTED.has(sub.status)) return new Decimal(0);
  let subtotal = new Decimal(0);
  for (const item of sub.items) {
    if (item.price.type !== 'recurring') continue;
    if (item.price.pricing_model !== 'standard') throw new Error(`the test prices standard prices only, not ${item.price.pricing_model}`);
    if (item.price.currency !== sub.currency) throw new Error('the test uses one currency');
    subtotal = subtotal.plus(new Decimal(item.price.unit_price).times(item.quantity));
  }
  // In force: every discount before the first collection; then while collections_count ≤ N.
  const inForce = (sub.discounts ?? []).filter(
    (d: any) => sub.collections_count === 0 || d.duration_in_collections === null || sub.collections_count <= d.duration_in_collections,
  );
  let off = new Decimal(0);
  for (const d of inForce) off = off.plus(d.percent != null ? halfUp(subtotal.times(d.percent).div(100)) : new Decimal(d.amount));
  const cycle = Decimal.max(0, subtotal.minus(off));
  return halfUp(cycle.times(monthly(sub.billing_period, sub.billing_interval)));
}

test('independentMrr follows the definition', () => {
  const item = (unit_price: string, quantity: number) => ({ quantity, price: { type: 'recurring', pricing_model: 'standard', currency: 'COP', unit_price } });
  const base = { status: 'active', currency: 'COP', billing_period: 'month', billing_interval: 1, collections_count: 1, discounts: [] as any[] };
  expect(independentMrr({ ...base, items: [item('49900.00', 2)] }).toFixed(2)).toBe('99800.00');
  expect(independentMrr({ ...base, billing_period: 'week', items: [item('12000.00', 1)] }).toFixed(2)).toBe('52000.00');
  expect(independentMrr({ ...base, billing_interval: 3, items: [item('100000.00', 1)] }).toFixed(2)).toBe('33333.33');
  expect(independentMrr({ ...base, billing_period: 'year', items: [item('100000.00', 1)] }).toFixed(2)).toBe('8333.33');
  // 15 % of 33333.33 is 4999.9995 → 5000.00 off, half-up.
  expect(independentMrr({ ...base, items: [item('33333.33', 1)], discounts: [{ percent: '15', amount: null, duration_in_collections: 2 }] }).toFixed(2)).toBe('28333.33');
  expect(independentMrr({ ...base, collections_count: 3, items: [item('33333.33', 1)], discounts: [{ percent: '15', amount: null, duration_in_collections: 2 }] }).toFixed(2)).toBe('33333.33');
  expect(independentMrr({ ...base, collections_count: 0, items: [item('10000.00', 1)], discounts: [{ percent: null, amount: '3000.00', duration_in_collections: 1 }] }).toFixed(2)).toBe('7000.00');
  expect(independentMrr({ ...base, status: 'paused', items: [item('10000.00', 1)] }).toFixed(2)).toBe('0.00');
});

// ---------------------------------------------------------------------------------------------
// Random histories.

const PRICES = {
  monthly: { billing_period: 'month', billing_interval: 1, unit_price: '49900' },
  weekly: { billing_period: 'week', billing_interval: 1, unit_price: '12345.67' },
  quarterly: { billing_period: 'month', billing_interval: 3, unit_price: '129900' },
  yearly: { billing_period: 'year', billing_interval: 1, unit_price: '479000' },
} as const;
type PriceKind = keyof typeof PRICES;
const PRICE_KINDS = Object.keys(PRICES) as PriceKind[];
/** The other price of each frequency, an item's upgrade or downgrade (an item's price keeps the subscription's frequency). */
const OTHER_PRICE: Record<PriceKind, string> = { monthly: '33333.33', weekly: '20000', quarterly: '99999.99', yearly: '520000.50' };

const subSpec = fc.record({
  price: fc.constantFrom(...PRICE_KINDS),
  quantity: fc.integer({ min: 1, max: 3 }),
  discount: fc.oneof(
    fc.constant(null),
    fc.record({ percent: fc.constantFrom('10', '15', '33.5', '50'), duration: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }) }),
    fc.record({ amount: fc.constantFrom('5000', '7777.77'), duration: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }) }),
  ),
  method: fc.constantFrom('approving', 'approving', 'collect', 'declining'),
});

const step = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('advance' as const), hours: fc.integer({ min: 1, max: 40 * 24 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('cancel' as const), sub: fc.nat(), at: fc.constantFrom('now', 'period_end') }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('pause' as const), sub: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('resume' as const), sub: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('quantity' as const), sub: fc.nat(), quantity: fc.integer({ min: 1, max: 4 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('price' as const), sub: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('pay' as const), sub: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('report' as const), frac: fc.double({ min: 0, max: 1, noNaN: true }) }) },
);
type SubSpec = typeof subSpec extends fc.Arbitrary<infer S> ? S : never;
type Step = typeof step extends fc.Arbitrary<infer S> ? S : never;

const scenario = fc.record({
  subs: fc.array(subSpec, { minLength: 1, maxLength: 4 }),
  steps: fc.array(step, { minLength: 3, maxLength: 14 }),
  probes: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 2, maxLength: 4 }),
});

/** The account's calendar day (Bogotá, UTC−5 all year) of an instant. */
const bogotaDay = (ms: number) => new Date(ms - 5 * HOUR).toISOString().slice(0, 10);
const iso = (ms: number) => new Date(ms).toISOString();

async function ok(res: { status: number; body: any }, what: string) {
  if (res.status !== 200) throw new Error(`${what} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Every subscription of the account. */
async function allSubscriptions(api: Client): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let guard = 0; guard < 50; guard++) {
    const body = await ok(await api.get(`/v1/subscriptions?limit=100${cursor ? `&starting_after=${cursor}` : ''}`), 'list subscriptions');
    ids.push(...body.data.map((s: any) => s.id));
    if (!body.has_more) break;
    cursor = ids[ids.length - 1];
  }
  return ids;
}

/** What the checks saw (statuses, discounts in force or over), printed at the end: the histories are not all trivial. */
const seen = new Map<string, number>();

/** The sum of the subscriptions' MRR at `at`, each rebuilt as of that instant; and each one's share. */
async function independentTotal(api: Client, ids: string[], at: string) {
  let total = new Decimal(0);
  const parts: Record<string, string> = {};
  for (const id of ids) {
    const res = await api.get(`/v1/subscriptions/${id}?as_of=${encodeURIComponent(at)}`);
    if (res.status === 404) continue; // not created yet at `at`
    const sub = await ok(res, `GET ${id} as_of ${at}`);
    const mrr = independentMrr(sub);
    parts[id] = `${sub.status} ${mrr.toFixed(2)} (cc ${sub.collections_count})`;
    seen.set(sub.status, (seen.get(sub.status) ?? 0) + 1);
    if (sub.discounts.length) {
      const over = sub.collections_count > 0 && sub.discounts.every((d: any) => d.duration_in_collections !== null && sub.collections_count > d.duration_in_collections);
      const k = `discount ${over ? 'over' : 'in force'}`;
      seen.set(k, (seen.get(k) ?? 0) + 1);
    }
    total = total.plus(mrr);
  }
  return { total: total.toFixed(2), parts };
}

const mrrUrl = (at: number) => `/v1/reports/mrr?from=${bogotaDay(at)}&to=${bogotaDay(at)}&interval=day&as_of=${encodeURIComponent(iso(at))}`;
const summaryUrl = (at: number) => {
  const day = bogotaDay(at);
  const from = `${day.slice(0, 7)}-01`;
  return `/v1/reports/summary?from=${from}&to=${day}&interval=day&as_of=${encodeURIComponent(iso(at))}`;
};

/** Builds one scenario on a fresh account and clock; returns what the checks need. */
async function play(subs: SubSpec[], steps: Step[]) {
  const api = t.as((await t.account()).test_key);
  const product = await ok(await api.post('/v1/products', { name: 'Plan' }), 'create product');
  const prices = {} as Record<PriceKind, string>;
  const others = {} as Record<PriceKind, string>;
  for (const kind of PRICE_KINDS) {
    prices[kind] = (await ok(await api.post('/v1/prices', { product_id: product.id, type: 'recurring', currency: 'COP', ...PRICES[kind] }), `create price ${kind}`)).id;
    const other = { product_id: product.id, type: 'recurring', currency: 'COP', ...PRICES[kind], unit_price: OTHER_PRICE[kind] };
    others[kind] = (await ok(await api.post('/v1/prices', other), `create other price ${kind}`)).id;
  }
  const { clock, customer } = await clockAndCustomer(api, START);
  let now = Date.parse(START);
  const ids: string[] = [];
  const items: string[] = [];
  const onOther: boolean[] = [];
  const kinds: PriceKind[] = [];
  for (const spec of subs) {
    const body: Record<string, unknown> = { customer: customer.id, items: [{ price: prices[spec.price], quantity: spec.quantity }] };
    if (spec.method === 'collect') Object.assign(body, { collection_method: 'collect', days_until_due: 3 });
    else body.payment_information = card();
    if (spec.discount) {
      const { duration, ...off } = spec.discount as { duration?: number; percent?: string; amount?: string };
      body.discounts = [{ code: 'PROMO', ...off, ...(duration ? { duration_in_collections: duration } : {}) }];
    }
    const sub = await ok(await api.post('/v1/subscriptions', body), 'create subscription');
    if (spec.method === 'declining') {
      const pm = await decliningMethod(api, customer.id);
      await ok(await api.post(`/v1/subscriptions/${sub.id}/update`, { payment_method: pm.id }), 'switch to a declining card');
    }
    ids.push(sub.id);
    items.push(sub.items[0].id);
    onOther.push(false);
    kinds.push(spec.price);
  }
  const instants = [now];
  const asked: { url: string; body: unknown }[] = [];
  const log: string[] = [];
  for (const s of steps) {
    const i = 'sub' in s ? s.sub % ids.length : 0;
    let res: { status: number; body: any } | null = null;
    switch (s.kind) {
      case 'advance':
        now += s.hours * HOUR;
        await advance(api, clock.id, iso(now));
        break;
      case 'cancel':
        res = await api.post(`/v1/subscriptions/${ids[i]}/cancel`, { cancel_at: s.at });
        break;
      case 'pause':
        res = await api.post(`/v1/subscriptions/${ids[i]}/pause`, {});
        break;
      case 'resume':
        res = await api.post(`/v1/subscriptions/${ids[i]}/resume`, {});
        break;
      case 'quantity':
        res = await api.post(`/v1/subscription_items/${items[i]}/update`, { quantity: s.quantity });
        break;
      case 'price':
        res = await api.post(`/v1/subscription_items/${items[i]}/update`, { price: (onOther[i] ? prices : others)[kinds[i]] });
        if (res.status === 200) onOther[i] = !onOther[i];
        break;
      case 'pay': {
        // The latest collection paid out of band (a collected subscription's, or a declined renewal's).
        const latest = (await ok(await api.get(`/v1/subscriptions/${ids[i]}`), 'GET subscription')).latest_collection;
        if (latest) res = await api.post(`/v1/collections/${latest}/pay`, { paid_out_of_band: true });
        break;
      }
      case 'report': {
        // A past instant: strictly before the clock's (events can still be stamped at the clock's own instant).
        if (now === Date.parse(START)) break;
        const at = Math.floor(Date.parse(START) + s.frac * (now - 1 - Date.parse(START)));
        for (const url of [mrrUrl(at), summaryUrl(at)]) asked.push({ url, body: await ok(await api.get(url), url) });
        break;
      }
    }
    // A step the subscription's state refuses (resume an active one, cancel a canceled one) is a no-op.
    if (res && res.status >= 500) throw new Error(`${s.kind} answered ${res.status}: ${JSON.stringify(res.body)}`);
    log.push(`${iso(now)} ${s.kind}${'sub' in s ? ` #${i}` : ''} → ${res ? res.status : 'ok'}`);
    instants.push(now);
  }
  return { api, ids, instants, asked, log, start: Date.parse(START), end: now };
}

test('MRR at any instant is the sum of the subscriptions\' MRR then; past reports stay; a rebuild gives the same figures', async () => {
  const started = Date.now();
  const everAsked: { api: Client; url: string; body: unknown }[] = [];
  await fc.assert(
    fc.asyncProperty(scenario, async ({ subs, steps, probes }) => {
      const run = await play(subs, steps);
      const ids = await allSubscriptions(run.api);
      expect(ids).toHaveLength(subs.length);
      // 1. At the steps' own instants and at random ones, the report's MRR is the subscriptions' sum.
      const at = new Set<number>([...run.instants, ...probes.map((p) => Math.floor(run.start + p * (run.end - run.start)))]);
      for (const ms of [...at].sort((a, b) => a - b)) {
        const report = await ok(await run.api.get(mrrUrl(ms)), mrrUrl(ms));
        const want = await independentTotal(run.api, ids, iso(ms));
        expect({ at: iso(ms), mrr: report.periods[0].mrr, history: run.log }).toEqual({ at: iso(ms), mrr: want.total, history: run.log });
        everAsked.push({ api: run.api, url: mrrUrl(ms), body: report });
      }
      // 2. A report asked during the history for a past instant is the same after the later events.
      for (const a of run.asked) {
        expect({ url: a.url, body: await ok(await run.api.get(a.url), a.url) }).toEqual({ url: a.url, body: a.body });
        everAsked.push({ api: run.api, ...a });
      }
    }),
    { numRuns: NUM_RUNS, ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {}) },
  );
  // 3. Rebuilding the projection from the first event gives every report asked above unchanged.
  expect(everAsked.length).toBeGreaterThan(NUM_RUNS);
  const [rebuilt] = await t.app.get(ProjectionEngine).rebuild('revenue');
  expect(rebuilt).toMatchObject({ name: 'revenue' });
  for (const a of everAsked) expect({ url: a.url, body: await ok(await a.api.get(a.url), a.url) }).toEqual({ url: a.url, body: a.body });
  // The histories reached what the property is about (a quiet run: asserted, not printed; FC_VERBOSE prints them).
  if (process.env.FC_VERBOSE) process.stdout.write(`revenue property: ${NUM_RUNS} runs, ${everAsked.length} reports compared after a rebuild, ${((Date.now() - started) / 1000).toFixed(1)} s; seen ${JSON.stringify(Object.fromEntries(seen))}\n`);
  if (NUM_RUNS >= 30) for (const reached of ['active', 'canceled', 'paused', 'discount in force', 'discount over']) expect(seen.get(reached) ?? 0).toBeGreaterThan(0);
}, 240_000);
