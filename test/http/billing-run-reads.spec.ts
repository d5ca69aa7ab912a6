import { jest } from '@jest/globals';
import type { EventStore } from '#event-store/event-store.port.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { EVENT_STORE, READ_STORE } from '#platform/tokens.js';
import { Scheduler } from '#scheduling/scheduler.js';
import { billingSetup, card } from '../support/billing-fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * What a renewal reads besides the streams it writes: with this process's projection pipeline
 * watching the store, the shared streams a renewal consults (the customer, its payment method, the
 * account, the invoicing settings) come from memory, not from a tail read each; with invoicing off
 * the invoicing listeners ask no read model; and a renewal's collection (`subscription_cycle`) is
 * looked up in no checkout session.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ now: new Date('2026-03-01T09:00:00.000Z') });
});
afterAll(async () => {
  await t.close();
});

test('renewals read no shared stream twice, ask no checkout session and, with invoicing off, no invoicing read model', async () => {
  const api = t.as((await t.account()).test_key);
  const s = await billingSetup(api);
  const subs: string[] = [];
  for (let i = 0; i < 4; i++) {
    const res = await api.post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], payment_information: card() });
    expect(res.body.status).toBe('active');
    subs.push(res.body.id);
  }
  const events = t.app.get<EventStore>(EVENT_STORE);
  const reads = t.app.get<ReadStore>(READ_STORE);
  t.app.get(Scheduler).concurrency = 1; // one renewal after another: each shared stream is read at most once
  const readStream = jest.spyOn(events, 'readStream');
  const find = jest.spyOn(reads, 'find');
  const get = jest.spyOn(reads, 'get');
  const getMany = jest.spyOn(reads, 'getMany');
  t.clock.set(new Date('2026-04-01T09:00:00.000Z'));
  const result = await t.runDue();
  expect(result.ran).toBe(4);

  const readsOf = (prefix: string) => readStream.mock.calls.filter(([stream]) => String(stream).startsWith(`${prefix}-`)).length;
  // Each shared stream at most once in the whole run (today: in memory from the creations, so 0).
  for (const shared of ['customer', 'paymentmethod', 'account', 'invoicingsettings']) expect(readsOf(shared)).toBeLessThanOrEqual(1);
  // The renewals' own collections were minted by the run: never read before they are written.
  expect(readsOf('collection')).toBe(0);
  // (The scheduler's own page queries of each deadline collection, checkout sessions' and invoices' included, aside.)
  const deadlinePage = (args: unknown[]) => '_clock' in (((args[1] as { where?: object }) ?? {}).where ?? {});
  const asked = (collection: string) => [...find.mock.calls.filter((args) => !deadlinePage(args)), ...get.mock.calls, ...getMany.mock.calls].filter(([c]) => c === collection).length;
  expect(asked('checkout_sessions')).toBe(0);
  expect(asked('invoices')).toBe(0);

  // And the run did its work: each renewed and charged once, no invoice (invoicing is off).
  for (const id of subs) {
    const sub = (await api.get(`/v1/subscriptions/${id}`)).body;
    expect(sub).toMatchObject({ status: 'active', collections_count: 2 });
    const charges = (await api.get(`/v1/charges?collection=${sub.latest_collection}`)).body.data;
    expect(charges.map((c: { status: string }) => c.status)).toEqual(['succeeded']);
  }
  expect((await api.get('/v1/invoices')).body.data).toEqual([]);
}, 60_000);
