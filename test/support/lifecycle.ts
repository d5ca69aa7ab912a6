import type { TestApp } from './test-app.js';
import { history } from './subscription-helpers.js';

type Client = ReturnType<TestApp['as']>;

export const CLOCKS = '/v1/test_helpers/test_clocks';

let n = 0;
export const clockEmail = () => `lifecycle.${++n}.${Date.now()}.${Math.random().toString(36).slice(2, 8)}@example.com`;

/** A new test clock frozen at `frozen_time`. */
export async function newClock(api: Client, frozen_time: string) {
  const res = await api.post(CLOCKS, { frozen_time });
  if (res.status !== 200) throw new Error(`create clock answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body as { id: string; frozen_time: string; status: string };
}

/** A new clock and a customer living on it. */
export async function clockAndCustomer(api: Client, frozen_time: string) {
  const clock = await newClock(api, frozen_time);
  const res = await api.post('/v1/customers', { email: clockEmail(), name: 'Ana Gómez', test_clock: clock.id });
  if (res.status !== 200) throw new Error(`create customer answered ${res.status}: ${JSON.stringify(res.body)}`);
  return { clock, customer: res.body as { id: string; test_clock: string } };
}

/** Advances the clock to `frozen_time`; the answer must be 200 and the clock ready there. */
export async function advance(api: Client, clockId: string, frozen_time: string) {
  const res = await api.post(`${CLOCKS}/${clockId}/advance`, { frozen_time });
  if (res.status !== 200) throw new Error(`advance to ${frozen_time} answered ${res.status}: ${JSON.stringify(res.body)}`);
  expect(res.body).toMatchObject({ id: clockId, status: 'ready', frozen_time: new Date(frozen_time).toISOString() });
  return res.body;
}

/** A subscription as GET answers it (must be 200). */
export async function getSub(api: Client, id: string) {
  const res = await api.get(`/v1/subscriptions/${id}`);
  if (res.status !== 200) throw new Error(`GET subscription answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A collection as GET answers it (must be 200). */
export async function getCol(api: Client, id: string) {
  const res = await api.get(`/v1/collections/${id}`);
  if (res.status !== 200) throw new Error(`GET collection answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Every collection of a subscription, oldest first (by creation time, then as listed). */
export async function collectionsOf(api: Client, subscriptionId: string): Promise<any[]> {
  const seen: any[] = [];
  let cursor: string | undefined;
  for (let guard = 0; guard < 50; guard++) {
    const res = await api.get(`/v1/collections?subscription=${subscriptionId}&limit=100${cursor ? `&starting_after=${cursor}` : ''}`);
    if (res.status !== 200) throw new Error(`list collections answered ${res.status}: ${JSON.stringify(res.body)}`);
    seen.push(...res.body.data);
    if (!res.body.has_more) break;
    cursor = res.body.data[res.body.data.length - 1].id;
  }
  return seen.reverse();
}

/** The event types of a subscription's history (its own events and its collections'), oldest first. */
export async function historyTypes(api: Client, subscriptionId: string): Promise<string[]> {
  return (await history(api, subscriptionId, 100)).map((e) => e.type);
}

/** The subscription's own events (`subscription.*`) in its history, oldest first. */
export async function subscriptionTypes(api: Client, subscriptionId: string): Promise<string[]> {
  return (await historyTypes(api, subscriptionId)).filter((t) => t.startsWith('subscription.'));
}

/** How many times `type` occurs in `types`. */
export const count = (types: string[], type: string) => types.filter((t) => t === type).length;

/** `created_date` as the API writes it ("YYYY-MM-DD HH:mm:ss", UTC) for an ISO time. */
export const createdDate = (iso: string) => iso.slice(0, 19).replace('T', ' ');

/** A declining card imported for `customer` (a migrated `simtok_decline_…` token). */
export async function decliningMethod(api: Client, customerId: string) {
  const res = await api.post('/v1/payment_methods/migrate', {
    customer: customerId,
    gateway: 'gateway_a',
    type: 'card',
    token: `simtok_decline_x${Math.random().toString(36).slice(2, 10).replace(/[^a-z0-9]/gi, '')}`,
    card: { brand: 'visa', last4: '0002', exp_month: 1, exp_year: 2030 },
  });
  if (res.status !== 200) throw new Error(`migrate payment method answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body as { id: string };
}
