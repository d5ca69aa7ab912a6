import fc from 'fast-check';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { billingSetup, card } from '../support/billing-fixtures.js';
import { history } from '../support/subscription-helpers.js';
import { advance, clockAndCustomer, collectionsOf, decliningMethod, getSub } from '../support/lifecycle.js';

/**
 * Issue 8, property: advancing a test clock is deterministic. Random scenarios of several
 * subscriptions on one clock (charge with an approving card, a declining one, a deleted one; collect;
 * a trial; a duration; a pause with resumes_at) are built twice; one copy is advanced to the target
 * in a single step, the other in a random partition of steps (random minutes, and some landing exactly
 * on the day's deadline hour). Both must end with the same event history — types, order, `created`
 * times — and the same read models (ids aside).
 *
 * Run time: each run builds two scenarios and advances them over up to 75 days (~3–5 s under load);
 * NUM_RUNS (default 6) keeps the test around 30 s. FC_SEED / FC_RUNS reproduce or widen a search.
 */
const NUM_RUNS = Number(process.env.FC_RUNS ?? 6);


let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await startTestApp();
  key = (await t.account()).test_key;
});
afterAll(() => t.close());

const api = () => t.as(key);
const START = '2026-01-31T10:00:00.000Z';
const MINUTE = 60_000;
const DAY = 86_400_000;

const KINDS = ['approving', 'declining', 'removed', 'collect', 'trial', 'duration', 'paused'] as const;
type Kind = (typeof KINDS)[number];

/** One scenario on a fresh clock: a subscription of each kind, in order. */
async function build(kinds: Kind[], pauseDays: number) {
  const s = await billingSetup(api());
  const { clock, customer } = await clockAndCustomer(api(), START);
  const subs: string[] = [];
  for (const kind of kinds) {
    const body: Record<string, unknown> = { customer: customer.id, items: [{ price: s.monthly.id }] };
    if (kind === 'collect') Object.assign(body, { collection_method: 'collect', days_until_due: 3 });
    else body.payment_information = card();
    if (kind === 'trial') body.trial_days = 14;
    if (kind === 'duration') body.duration = 2;
    const res = await api().post('/v1/subscriptions', body);
    if (res.status !== 200) throw new Error(`create ${kind} answered ${res.status}: ${JSON.stringify(res.body)}`);
    const sub = res.body;
    if (kind === 'declining') {
      const pm = await decliningMethod(api(), customer.id);
      expect((await api().post(`/v1/subscriptions/${sub.id}/update`, { payment_method: pm.id })).status).toBe(200);
    }
    if (kind === 'removed') expect((await api().post(`/v1/payment_methods/${sub.payment_method}/delete`, {})).status).toBe(200);
    if (kind === 'paused') {
      const resumes_at = new Date(Date.parse(START) + pauseDays * DAY + 7 * 3_600_000).toISOString();
      expect((await api().post(`/v1/subscriptions/${sub.id}/pause`, { resumes_at })).status).toBe(200);
    }
    subs.push(sub.id);
  }
  return { clock, subs };
}

const ID = /\b(sub|col|cus|pm|tx|ch|si|price|prod|clock|evt|re|rcpt|di)_[A-Za-z0-9]+/g;

/** A document with its ids replaced by their order of first appearance (ids are random; their relations are not). */
function canon(value: unknown, seen: Map<string, string>): unknown {
  if (typeof value === 'string') {
    // Names, e-mails, tokens and gateway references made random by the fixtures or the simulator.
    value = value.replace(/^Plan \d+$/, 'Plan').replace(/^sim_[0-9a-f]+$/, 'sim_…').replace(/^[^@\s]+@example\.com$/, 'email');
    return (value as string).replace(ID, (id, prefix: string) => {
      if (!seen.has(id)) seen.set(id, `${prefix}#${seen.size}`);
      return seen.get(id)!;
    });
  }
  if (Array.isArray(value)) return value.map((v) => canon(v, seen));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) if (!k.startsWith('_')) out[k] = canon((value as Record<string, unknown>)[k], seen);
    return out;
  }
  return value;
}

/** Everything a scenario left: per subscription its history (type, created, subject) and its read models. */
async function outcome(subs: string[]) {
  const seen = new Map<string, string>();
  const out = [];
  for (const id of subs) {
    const events = (await history(api(), id, 100)).map((e) => ({ type: e.type, created: e.created, object: e.data.object }));
    out.push(
      canon(
        {
          history: events.map((e) => `${e.type}@${e.created}`),
          objects: events.map((e) => e.object),
          subscription: await getSub(api(), id),
          collections: await collectionsOf(api(), id),
        },
        seen,
      ),
    );
  }
  return out;
}

test('any partition of an advance gives the same events and read models as one advance', async () => {
  const scenario = fc
    .record({
      kinds: fc.uniqueArray(fc.constantFrom(...KINDS), { minLength: 2, maxLength: 4 }),
      days: fc.integer({ min: 20, max: 75 }),
      pauseDays: fc.integer({ min: 3, max: 40 }),
      minutes: fc.array(fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }), { minLength: 1, maxLength: 10 }),
      exactDays: fc.array(fc.integer({ min: 1, max: 74 }), { maxLength: 4 }),
    })
    .map((r) => {
      const end = Date.parse(START) + r.days * DAY;
      const cuts = new Set<number>();
      for (const f of r.minutes) cuts.add(Date.parse(START) + Math.max(1, Math.floor((f * r.days * DAY) / MINUTE)) * MINUTE);
      for (const d of r.exactDays) if (d < r.days) cuts.add(Date.parse(START) + d * DAY);
      const steps = [...cuts].filter((c) => c < end).sort((a, b) => a - b);
      return { kinds: r.kinds as Kind[], pauseDays: r.pauseDays, end: new Date(end).toISOString(), steps: [...steps.map((c) => new Date(c).toISOString()), new Date(end).toISOString()] };
    });

  await fc.assert(
    fc.asyncProperty(scenario, async ({ kinds, pauseDays, end, steps }) => {
      const one = await build(kinds, pauseDays);
      await advance(api(), one.clock.id, end);
      const many = await build(kinds, pauseDays);
      for (const at of steps) await advance(api(), many.clock.id, at);
      const [got, want] = [await outcome(many.subs), await outcome(one.subs)];
      // The histories first (a readable diff when they differ), then everything.
      expect(got.map((o: any) => o.history)).toEqual(want.map((o: any) => o.history));
      expect(got).toEqual(want);
    }),
    { numRuns: NUM_RUNS, ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {}) },
  );
}, 240_000);
