import { loadConfig } from '#platform/config.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { billingSetup, card, CARDS } from '../support/billing-fixtures.js';

let t: TestApp;
let key: string;
let liveKey: string;
let checkoutUrl: string;

beforeAll(async () => {
  t = await startTestApp();
  const account = await t.account('Collections merchant');
  key = account.test_key;
  liveKey = account.live_key;
  checkoutUrl = loadConfig({ DATA_DIR: t.dataDir }).checkoutUrl;
});
afterAll(() => t.close());

const api = () => t.as(key);

type Evt = { id: string; type: string; created: string; data: { object: Record<string, any> } };
type Doc = Record<string, any>;

/** Every feed entry matching `query`, oldest first. */
async function feed(query: string, as = key): Promise<Evt[]> {
  const seen: Evt[] = [];
  let cursor: string | undefined;
  for (let guard = 0; guard < 50; guard++) {
    const res = await t.as(as).get(`/v1/events?limit=100&${query}${cursor ? `&starting_after=${cursor}` : ''}`);
    expect(res.status).toBe(200);
    seen.push(...res.body.data);
    if (!res.body.has_more) return seen;
    cursor = res.body.data[res.body.data.length - 1].id;
  }
  throw new Error('feed did not end');
}

/** The types of the feed entries about one collection, oldest first. */
const collectionEventTypes = async (id: string) => (await feed(`object_id=${id}`)).map((e) => e.type);

async function oneTimePrice(unit_price: string, currency = 'COP', productName = 'One-off') {
  const product = (await api().post('/v1/products', { name: productName })).body;
  const res = await api().post('/v1/prices', { product_id: product.id, type: 'one_time', unit_price, currency });
  expect(res.status).toBe(200);
  return { product, price: res.body };
}

/** A customer and a one-time price (49900 COP by default). */
async function setup(unit = '49900') {
  const s = await billingSetup(api());
  const { price, product } = await oneTimePrice(unit);
  return { ...s, price, product };
}

/** A standalone collection for `customer` (collect, 7 days, one item of `price` unless told otherwise). */
async function newCollection(customer: string, price: string, extra: object = {}): Promise<Doc> {
  const res = await api().post('/v1/collections', { customer, items: [{ price }], collection_method: 'collect', days_until_due: 7, ...extra });
  expect(res.status).toBe(200);
  return res.body;
}

const pay = (id: string, body: object = { payment_information: card() }, as = key) => t.as(as).post(`/v1/collections/${id}/pay`, body);

async function charges(collection: string): Promise<Doc[]> {
  const res = await api().get(`/v1/charges?collection=${collection}&limit=100`);
  expect(res.status).toBe(200);
  return [...res.body.data].sort((a: Doc, b: Doc) => a.try - b.try);
}

/** A paid collection (approving card) of `total` COP for a fresh customer. */
async function paidCollection(unit = '49900') {
  const s = await setup(unit);
  const col = await newCollection(s.customer.id, s.price.id);
  const paid = await pay(col.id);
  expect(paid.status).toBe(200);
  expect(paid.body.status).toBe('paid');
  return { ...s, col: paid.body as Doc };
}

function expectRefused(res: { status: number; body: any }, status: string, code = 'invalid_state') {
  expect(res.status).toBe(409);
  expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code });
  expect(res.body.error.message).toContain(`its status is ${status}`);
}

describe('POST /v1/collections (standalone)', () => {
  test('collect: one_time items priced, due until the end of the Bogotá day days_until_due days after today, hosted page URL, created and sent', async () => {
    const s = await setup('49900');
    const now = t.clock.now();
    const res = await api().post('/v1/collections', {
      customer: s.customer.id,
      items: [{ price: s.price.id, quantity: 2 }, { price: s.setupFee.id }],
      collection_method: 'collect',
      days_until_due: 7,
      description: 'Order 1001',
      meta_data: { order: '1001' },
    });
    expect(res.status).toBe(200);
    const col = res.body;
    expect(col.id).toMatch(/^col_[0-9A-Za-z]{24}$/);
    expect(col).toMatchObject({
      object: 'collection',
      status: 'pending',
      currency: 'COP',
      subtotal: '109800.00',
      total: '109800.00',
      description: 'Order 1001',
      meta_data: { order: '1001' },
      collection_method: 'collect',
      type: 'invoice',
      customer: s.customer.id,
      subscription: null,
      // Created 2026-11-23 05:00 in Bogotá: due Nov 30, until 23:59:59.999 there.
      due_date: '2026-12-01T04:59:59.999Z',
      checkout_url: `${checkoutUrl}/col/${col.id}`,
      collection_attempts: 0,
      collecting: false,
      paid_out_of_band: false,
      out_of_band_proof: null,
      paid_date: null,
      voided_at_date: null,
      discounts: [],
      invoices: [],
      additional_data: null,
      amount_refunded: '0.00',
      exchange_rates: [],
      is_test: true,
      created_date: now.toISOString().replace('T', ' ').slice(0, 19),
    });
    expect(col.items).toHaveLength(2);
    expect(col.items[0]).toMatchObject({
      id: expect.stringMatching(/^si_/),
      name: s.product.name,
      unit_price: '49900.00',
      quantity: 2,
      subtotal: '99800.00',
      total: '99800.00',
      product: { id: s.product.id },
      price: { id: s.price.id, type: 'one_time' },
    });
    expect(col.items[1]).toMatchObject({ unit_price: '10000.00', quantity: 1, subtotal: '10000.00', price: { id: s.setupFee.id } });

    const got = await api().get(`/v1/collections/${col.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(col);

    const events = await feed(`object_id=${col.id}`);
    expect(events.map((e) => e.type)).toEqual(['collection.created', 'collection.sent']);
    expect(events[0].data.object).toMatchObject({ id: col.id, status: 'pending', total: '109800.00' });
  });

  test('charge: no due date, not sent, stays pending for /pay', async () => {
    const s = await setup();
    const res = await api().post('/v1/collections', { customer: s.customer.id, items: [{ price: s.price.id }], collection_method: 'charge' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'pending', collection_method: 'charge', due_date: null, total: '49900.00' });
    expect(await collectionEventTypes(res.body.id)).toEqual(['collection.created']);
  });

  test('recurring prices are refused; collect needs days_until_due; charge refuses it; unknown customer and price are 404', async () => {
    const s = await setup();
    const recurring = await api().post('/v1/collections', { customer: s.customer.id, items: [{ price: s.price.id }, { price: s.monthly.id }], days_until_due: 3 });
    expect(recurring.status).toBe(400);
    expect(recurring.body.error).toMatchObject({ code: 'parameter_invalid', param: 'items[1][price]' });
    expect(recurring.body.error.message).toContain('recurring');

    const noDays = await api().post('/v1/collections', { customer: s.customer.id, items: [{ price: s.price.id }], collection_method: 'collect' });
    expect(noDays.status).toBe(400);
    expect(noDays.body.error).toMatchObject({ code: 'parameter_missing', param: 'days_until_due' });
    // collect is the default method
    const defaultMethod = await api().post('/v1/collections', { customer: s.customer.id, items: [{ price: s.price.id }] });
    expect(defaultMethod.status).toBe(400);
    expect(defaultMethod.body.error).toMatchObject({ code: 'parameter_missing', param: 'days_until_due' });

    const chargeWithDays = await api().post('/v1/collections', { customer: s.customer.id, items: [{ price: s.price.id }], collection_method: 'charge', days_until_due: 3 });
    expect(chargeWithDays.status).toBe(400);
    expect(chargeWithDays.body.error).toMatchObject({ param: 'days_until_due' });

    const noItems = await api().post('/v1/collections', { customer: s.customer.id, items: [], days_until_due: 3 });
    expect(noItems.status).toBe(400);
    expect(noItems.body.error.param).toBe('items');

    const unknownCustomer = await api().post('/v1/collections', { customer: 'cus_nope', items: [{ price: s.price.id }], days_until_due: 3 });
    expect(unknownCustomer.status).toBe(404);
    expect(unknownCustomer.body.error).toMatchObject({ code: 'resource_missing', param: 'customer' });
    const unknownPrice = await api().post('/v1/collections', { customer: s.customer.id, items: [{ price: 'price_nope' }], days_until_due: 3 });
    expect(unknownPrice.status).toBe(404);
    expect(unknownPrice.body.error).toMatchObject({ code: 'resource_missing', param: 'items[0][price]' });

    const unknownField = await api().post('/v1/collections', { customer: s.customer.id, items: [{ price: s.price.id }], days_until_due: 3, colour: 'red' });
    expect(unknownField.status).toBe(400);
    expect(unknownField.body.error).toMatchObject({ code: 'parameter_unknown', param: 'colour' });
  });

  test('a USD one-time price on a COP collection is converted at the configured rate and the rate is recorded', async () => {
    const s = await setup();
    const usd = await oneTimePrice('10.00', 'USD', 'Dollar add-on');
    const res = await api().post('/v1/collections', {
      customer: s.customer.id,
      currency: 'COP',
      items: [{ price: usd.price.id, quantity: 3 }, { price: s.price.id }],
      collection_method: 'charge',
    });
    expect(res.status).toBe(200);
    expect(res.body.currency).toBe('COP');
    expect(res.body.items[0]).toMatchObject({ unit_price: '40000.00', quantity: 3, subtotal: '120000.00', price: { id: usd.price.id, currency: 'USD', unit_price: '10.00' } });
    expect(res.body.items[1]).toMatchObject({ unit_price: '49900.00', subtotal: '49900.00' });
    expect(res.body.subtotal).toBe('169900.00');
    expect(res.body.total).toBe('169900.00');
    expect(res.body.exchange_rates).toEqual([{ from: 'USD', to: 'COP', rate: '4000', as_of: t.clock.now().toISOString(), source: 'table' }]);

    // Without a currency the collection takes the first price's.
    const inUsd = await api().post('/v1/collections', { customer: s.customer.id, items: [{ price: usd.price.id }], collection_method: 'charge' });
    expect(inUsd.status).toBe(200);
    expect(inUsd.body).toMatchObject({ currency: 'USD', total: '10.00', exchange_rates: [] });
  });
});

describe('GET /v1/collections', () => {
  test('filters by customer, subscription and status; pages newest first without repeats', async () => {
    const s = await setup();
    const other = await billingSetup(api());
    const mine: string[] = [];
    for (let i = 0; i < 5; i++) {
      t.clock.advanceMs(1000);
      mine.push((await newCollection(s.customer.id, s.price.id)).id);
    }
    const foreign = await newCollection(other.customer.id, s.price.id);
    await pay(mine[1]);
    expect((await api().post(`/v1/collections/${mine[2]}/void`)).status).toBe(200);

    const all = await api().get(`/v1/collections?customer=${s.customer.id}&limit=100`);
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ object: 'list', url: '/v1/collections', has_more: false });
    expect(all.body.data.map((c: Doc) => c.id)).toEqual([...mine].reverse());

    const pages: string[] = [];
    let cursor: string | undefined;
    for (let guard = 0; guard < 10; guard++) {
      const page = await api().get(`/v1/collections?customer=${s.customer.id}&limit=2${cursor ? `&starting_after=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      pages.push(...page.body.data.map((c: Doc) => c.id));
      if (!page.body.has_more) break;
      cursor = page.body.data[page.body.data.length - 1].id;
    }
    expect(pages).toEqual([...mine].reverse());

    const paid = await api().get(`/v1/collections?customer=${s.customer.id}&status=paid`);
    expect(paid.body.data.map((c: Doc) => c.id)).toEqual([mine[1]]);
    const voided = await api().get(`/v1/collections?customer=${s.customer.id}&status=voided`);
    expect(voided.body.data.map((c: Doc) => c.id)).toEqual([mine[2]]);
    const pending = await api().get(`/v1/collections?customer=${s.customer.id}&status=pending`);
    expect(pending.body.data.map((c: Doc) => c.id)).toEqual([mine[4], mine[3], mine[0]]);
    expect((await api().get(`/v1/collections?customer=${other.customer.id}`)).body.data.map((c: Doc) => c.id)).toEqual([foreign.id]);

    expect((await api().get('/v1/collections?status=bogus')).status).toBe(400);
    expect((await api().get('/v1/collections?starting_after=col_nope')).status).toBe(400);

    // A subscription's collections
    const sub = await api().post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], collection_method: 'collect', days_until_due: 5 });
    expect(sub.status).toBe(200);
    const bySub = await api().get(`/v1/collections?subscription=${sub.body.id}`);
    expect(bySub.status).toBe(200);
    expect(bySub.body.data.map((c: Doc) => c.id)).toEqual([sub.body.latest_collection]);
    expect(bySub.body.data[0]).toMatchObject({ subscription: sub.body.id, customer: s.customer.id });
  });

  test('an unknown collection is 404; a live key does not see test collections', async () => {
    const s = await setup();
    const col = await newCollection(s.customer.id, s.price.id);
    const missing = await api().get('/v1/collections/col_doesnotexist');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ code: 'resource_missing' });
    const live = await t.as(liveKey).get(`/v1/collections/${col.id}`);
    expect(live.status).toBe(404);
    expect(live.body.error).toMatchObject({ code: 'resource_missing' });
    expect((await t.as(liveKey).get('/v1/collections')).body.data).toEqual([]);
    expect((await pay(col.id, { payment_information: card() }, liveKey)).status).toBe(404);
    expect((await t.as(liveKey).post(`/v1/collections/${col.id}/void`)).status).toBe(404);
    expect((await api().get(`/v1/collections/${col.id}`)).body.status).toBe('pending');
    // Another account does not see it either.
    const other = await t.account('Someone else');
    expect((await t.as(other.test_key).get(`/v1/collections/${col.id}`)).status).toBe(404);
  });
});

describe('POST /v1/collections/{id}/pay', () => {
  test('with payment_information: paid, the card saved as a pm_ and made the default, listed on the customer', async () => {
    const s = await setup();
    const col = await newCollection(s.customer.id, s.price.id);
    const res = await pay(col.id, { payment_information: card('approve') });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: col.id,
      status: 'paid',
      paid_date: t.clock.now().toISOString(),
      collection_attempts: 1,
      collecting: false,
      payment_method_gateway: 'gateway_a',
      payment_method_type: 'card',
      paid_out_of_band: false,
    });
    const pm = res.body.payment_method;
    expect(pm).toMatch(/^pm_/);
    expect((await api().get(`/v1/collections/${col.id}`)).body).toEqual(res.body);

    const customer = await api().get(`/v1/customers/${s.customer.id}`);
    expect(customer.body.default_payment_method).toBe(pm);
    const methods = await api().get(`/v1/customers/${s.customer.id}/payment_methods`);
    expect(methods.status).toBe(200);
    expect(methods.body.data).toHaveLength(1);
    expect(methods.body.data[0]).toMatchObject({
      id: pm,
      object: 'payment_method',
      customer: s.customer.id,
      gateway: 'gateway_a',
      type: 'card',
      card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030 },
    });
    expect(JSON.stringify(methods.body)).not.toContain(CARDS.approve.number);

    const [charge] = await charges(col.id);
    expect(charge).toMatchObject({ object: 'charge', status: 'succeeded', try: 1, amount: '49900.00', currency: 'COP', collection: col.id, gateway: 'gateway_a' });
    const types = await collectionEventTypes(col.id);
    expect(types).toEqual(['collection.created', 'collection.sent', 'collection.paid']);
    const paidEvents = await feed(`type=charge.paid`);
    expect(paidEvents.filter((e) => e.data.object.collection === col.id).map((e) => e.data.object.id)).toEqual([charge.id]);
  });

  test('with a stored payment_method, and with the default method when nothing is sent', async () => {
    const s = await setup();
    const first = await pay((await newCollection(s.customer.id, s.price.id)).id);
    const pm = first.body.payment_method;

    const second = await newCollection(s.customer.id, s.setupFee.id);
    const stored = await pay(second.id, { payment_method: pm });
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({ status: 'paid', payment_method: pm, total: '10000.00', payment_method_type: 'card' });

    const third = await newCollection(s.customer.id, s.price.id);
    const byDefault = await pay(third.id, {});
    expect(byDefault.status).toBe(200);
    expect(byDefault.body).toMatchObject({ status: 'paid', payment_method: pm });
    expect((await charges(third.id)).map((c) => [c.status, c.payment_method])).toEqual([['succeeded', pm]]);

    // Still exactly one stored method (paying with it saves nothing new).
    expect((await api().get(`/v1/customers/${s.customer.id}/payment_methods`)).body.data).toHaveLength(1);
  });

  test('no default method and nothing sent is 400; another customer\'s method is 400; both sources at once is 400', async () => {
    const s = await setup();
    const col = await newCollection(s.customer.id, s.price.id);
    const none = await pay(col.id, {});
    expect(none.status).toBe(400);
    expect(none.body.error).toMatchObject({ code: 'payment_method_required', param: 'payment_method' });

    const other = await paidCollection();
    const foreign = await pay(col.id, { payment_method: other.col.payment_method });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error).toMatchObject({ param: 'payment_method' });

    const both = await pay(col.id, { payment_method: other.col.payment_method, payment_information: card() });
    expect(both.status).toBe(400);
    const unknownPm = await pay(col.id, { payment_method: 'pm_nope' });
    expect(unknownPm.status).toBe(404);
    expect(unknownPm.body.error).toMatchObject({ code: 'resource_missing', param: 'payment_method' });
    const badCard = await pay(col.id, { payment_information: { gateway: 'gateway_a', type: 'card', card: { ...CARDS.approve, number: '4242424242424241' } } });
    expect(badCard.status).toBe(400);
    expect(badCard.body.error.param).toBe('payment_information[card][number]');

    const after = (await api().get(`/v1/collections/${col.id}`)).body;
    expect(after).toMatchObject({ status: 'pending', collection_attempts: 0 });
    expect(await charges(col.id)).toEqual([]);
  });

  test('declined: 402 payment_error card_declined with decline_code; attempt recorded; a good card then pays', async () => {
    const s = await setup();
    const col = await newCollection(s.customer.id, s.price.id);
    const res = await pay(col.id, { payment_information: card('decline') });
    expect(res.status).toBe(402);
    expect(res.body.error).toMatchObject({
      type: 'payment_error',
      code: 'card_declined',
      decline_code: 'generic_decline',
      message: 'The card was declined.',
      collection: col.id,
      charge: expect.stringMatching(/^ch_/),
      transaction: expect.stringMatching(/^tx_/),
    });
    const after = (await api().get(`/v1/collections/${col.id}`)).body;
    expect(after).toMatchObject({ status: 'pending', collection_attempts: 1, collecting: false, paid_date: null });
    const cs = await charges(col.id);
    expect(cs).toHaveLength(1);
    expect(cs[0]).toMatchObject({ id: res.body.error.charge, status: 'failed', failure_code: 'card_declined', decline_code: 'generic_decline' });
    const tx = await api().get(`/v1/transactions/${res.body.error.transaction}`);
    expect(tx.body).toMatchObject({ status: 'failed', failure_code: 'card_declined', charges: [cs[0].id] });

    const types = await collectionEventTypes(col.id);
    expect(types).toEqual(['collection.created', 'collection.sent', 'collection.payment_failed']);
    const failedCharges = (await feed('type=charge.failed')).filter((e) => e.data.object.collection === col.id);
    expect(failedCharges.map((e) => e.data.object.id)).toEqual([cs[0].id]);
    // A declined one-off card is not saved.
    expect((await api().get(`/v1/customers/${s.customer.id}/payment_methods`)).body.data).toEqual([]);
    expect((await api().get(`/v1/customers/${s.customer.id}`)).body.default_payment_method).toBeNull();

    const retry = await pay(col.id, { payment_information: card('approve') });
    expect(retry.status).toBe(200);
    expect(retry.body).toMatchObject({ status: 'paid', collection_attempts: 2 });
    expect((await charges(col.id)).map((c) => c.status).sort()).toEqual(['failed', 'succeeded']);
  });

  test('insufficient funds: 402 with decline_code insufficient_funds', async () => {
    const s = await setup();
    const col = await newCollection(s.customer.id, s.price.id);
    const res = await pay(col.id, { payment_information: card('insufficientFunds') });
    expect(res.status).toBe(402);
    expect(res.body.error).toMatchObject({ type: 'payment_error', code: 'card_declined', decline_code: 'insufficient_funds' });
    expect((await api().get(`/v1/collections/${col.id}`)).body).toMatchObject({ status: 'pending', collection_attempts: 1 });
  });

  test('flaky card: one transaction with two charges, the first failed (processing_error), the second succeeded', async () => {
    const s = await setup();
    const col = await newCollection(s.customer.id, s.price.id);
    const res = await pay(col.id, { payment_information: card('flaky') });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'paid', collection_attempts: 1 });
    const cs = await charges(col.id);
    expect(cs).toHaveLength(2);
    expect(cs[0]).toMatchObject({ try: 1, status: 'failed', failure_code: 'processing_error', decline_code: null });
    expect(cs[1]).toMatchObject({ try: 2, status: 'succeeded', failure_code: null });
    expect(cs[0].transaction).toBe(cs[1].transaction);
    expect(cs[0].transaction).toBe(res.body.latest_transaction);
    const tx = await api().get(`/v1/transactions/${cs[0].transaction}`);
    expect(tx.status).toBe(200);
    expect(tx.body).toMatchObject({ object: 'transaction', collection: col.id, status: 'succeeded', charges: [cs[0].id, cs[1].id], amount: '49900.00' });
    const txs = await api().get(`/v1/transactions?collection=${col.id}`);
    expect(txs.body.data.map((x: Doc) => x.id)).toEqual([cs[0].transaction]);
    // The technical failure is not a failed payment of the collection.
    expect(await collectionEventTypes(col.id)).toEqual(['collection.created', 'collection.sent', 'collection.paid']);
  });

  test('pse: 200 processing with a redirect; settle → paid; nothing saved', async () => {
    const s = await setup();
    const col = await newCollection(s.customer.id, s.price.id);
    const res = await pay(col.id, { payment_information: { gateway: 'gateway_a', type: 'pse', bank_code: '1007' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'processing', collection_attempts: 1, payment_method_type: 'pse', payment_method_gateway: 'gateway_a' });
    expect(res.body.additional_data).toMatchObject({ type: 'redirect', bank_code: '1007' });
    expect(res.body.additional_data.redirect_url).toMatch(new RegExp(`^${checkoutUrl}/sim/gateway_a/pse/ch_`));
    expect((await charges(col.id)).map((c) => c.status)).toEqual(['pending']);

    // While it awaits the customer, another pay is refused.
    const again = await pay(col.id, { payment_information: card() });
    expectRefused(again, 'processing', 'payment_in_progress');

    const settled = await api().post(`/v1/test_helpers/collections/${col.id}/settle`);
    expect(settled.status).toBe(200);
    expect(settled.body).toMatchObject({ status: 'paid', additional_data: null, paid_date: t.clock.now().toISOString(), payment_method: null });
    expect((await charges(col.id)).map((c) => c.status)).toEqual(['succeeded']);
    expect(await collectionEventTypes(col.id)).toEqual(['collection.created', 'collection.sent', 'collection.paid']);
    expect((await api().get(`/v1/customers/${s.customer.id}/payment_methods`)).body.data).toEqual([]);

    const settleAgain = await api().post(`/v1/test_helpers/collections/${col.id}/settle`);
    expectRefused(settleAgain, 'paid');
  });

  test('pse abandoned: fail → back to pending with collection.payment_failed; it can be paid again', async () => {
    const s = await setup();
    const col = await newCollection(s.customer.id, s.price.id);
    expect((await pay(col.id, { payment_information: { gateway: 'gateway_c', type: 'pse', bank_code: '1040' } })).body.status).toBe('processing');
    const failed = await api().post(`/v1/test_helpers/collections/${col.id}/fail`);
    expect(failed.status).toBe(200);
    expect(failed.body).toMatchObject({ status: 'pending', additional_data: null, collecting: false });
    expect((await charges(col.id)).map((c) => [c.status, c.failure_code])).toEqual([['failed', 'payment_not_completed']]);
    expect(await collectionEventTypes(col.id)).toEqual(['collection.created', 'collection.sent', 'collection.payment_failed']);
    const failEvent = (await feed(`object_id=${col.id}&type=collection.payment_failed`))[0];
    expect(failEvent.data.object).toMatchObject({ id: col.id, status: 'pending' });

    expectRefused(await api().post(`/v1/test_helpers/collections/${col.id}/fail`), 'pending');
    const paid = await pay(col.id);
    expect(paid.body).toMatchObject({ status: 'paid', collection_attempts: 2 });
  });

  test('pse needs a bank_code', async () => {
    const s = await setup();
    const col = await newCollection(s.customer.id, s.price.id);
    const res = await pay(col.id, { payment_information: { gateway: 'gateway_a', type: 'pse' } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'parameter_missing', param: 'payment_information[bank_code]' });
  });

  test('efecty and cash: processing with voucher instructions in additional_data', async () => {
    const s = await setup();
    const efecty = await newCollection(s.customer.id, s.price.id);
    const res = await pay(efecty.id, { payment_information: { gateway: 'gateway_b', type: 'efecty' } });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('processing');
    expect(res.body.additional_data).toEqual({
      type: 'voucher',
      method: 'efecty',
      reference: expect.stringMatching(/^\d{10}$/),
      amount: '49900.00',
      currency: 'COP',
      instructions: expect.stringContaining('Pay 49900.00 COP with efecty quoting reference'),
    });
    expect(res.body.additional_data.instructions).toContain(res.body.additional_data.reference);

    const cash = await newCollection(s.customer.id, s.setupFee.id);
    const cashRes = await pay(cash.id, { payment_information: { gateway: 'gateway_j', type: 'cash' } });
    expect(cashRes.status).toBe(200);
    expect(cashRes.body).toMatchObject({ status: 'processing', payment_method_gateway: 'gateway_j', payment_method_type: 'cash' });
    expect(cashRes.body.additional_data).toMatchObject({ type: 'voucher', method: 'cash', amount: '10000.00', currency: 'COP' });
    const settled = await api().post(`/v1/test_helpers/collections/${cash.id}/settle`);
    expect(settled.body.status).toBe('paid');
  });

  test('out of band: paid_out_of_band true, proof kept; a bad proof URL is 400', async () => {
    const s = await setup();
    const col = await newCollection(s.customer.id, s.price.id);
    const bad = await pay(col.id, { paid_out_of_band: true, out_of_band_proof: 'not a url' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'parameter_invalid', param: 'out_of_band_proof' });
    const proofWithoutFlag = await pay(col.id, { out_of_band_proof: 'https://example.com/r/1.pdf' });
    expect(proofWithoutFlag.status).toBe(400);
    expect(proofWithoutFlag.body.error.param).toBe('out_of_band_proof');
    const mixed = await pay(col.id, { paid_out_of_band: true, payment_information: card() });
    expect(mixed.status).toBe(400);

    const res = await pay(col.id, { paid_out_of_band: true, out_of_band_proof: 'https://example.com/receipts/123.pdf' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'paid',
      paid_out_of_band: true,
      out_of_band_proof: 'https://example.com/receipts/123.pdf',
      paid_date: t.clock.now().toISOString(),
      collection_attempts: 0,
    });
    expect(await charges(col.id)).toEqual([]);
    const paidEvent = (await feed(`object_id=${col.id}&type=collection.paid`))[0];
    expect(paidEvent.data.object).toMatchObject({ paid_out_of_band: true, out_of_band_proof: 'https://example.com/receipts/123.pdf' });

    // mark_refunded on an out-of-band payment
    const refunded = await api().post(`/v1/collections/${col.id}/mark_refunded`, { reason: 'returned in cash' });
    expect(refunded.status).toBe(200);
    expect(refunded.body).toMatchObject({ status: 'refunded', amount_refunded: '49900.00' });
  });

  test('a gateway removed from the account cannot be paid with: 400 with the spec\'s message', async () => {
    const account = await t.account('No gateway_b');
    const k = account.test_key;
    const s = await billingSetup(t.as(k));
    const removed = await t.as(k).delete('/v1/account/gateways/gateway_b');
    expect(removed.status).toBe(200);
    const col = (await t.as(k).post('/v1/collections', { customer: s.customer.id, items: [{ price: s.setupFee.id }], days_until_due: 3 })).body;
    const res = await pay(col.id, { payment_information: card('approve', 'gateway_b') }, k);
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      type: 'invalid_request_error',
      code: 'gateway_not_configured',
      message: 'The gateway gateway_b is not configured in the account',
      param: 'payment_information[gateway]',
    });
    expect((await t.as(k).get(`/v1/collections/${col.id}`)).body).toMatchObject({ status: 'pending', collection_attempts: 0 });
    // Another configured gateway still works.
    expect((await pay(col.id, { payment_information: card('approve', 'gateway_c') }, k)).body.status).toBe('paid');
  });

  test('a method the gateway does not offer is 400 (gateway_i has no pse); an unknown gateway is 400', async () => {
    const s = await setup();
    const col = await newCollection(s.customer.id, s.price.id);
    const res = await pay(col.id, { payment_information: { gateway: 'gateway_i', type: 'pse', bank_code: '1007' } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param: 'payment_information[type]' });
    expect(res.body.error.message).toContain('gateway_i');
    const unknown = await pay(col.id, { payment_information: { gateway: 'gateway_z', type: 'card', card: CARDS.approve } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.param).toBe('payment_information[gateway]');
    expect((await api().get(`/v1/collections/${col.id}`)).body.collection_attempts).toBe(0);
  });
});

describe('void, mark_uncollectible, send', () => {
  test('void a pending collection; a paid one is 409 naming its status', async () => {
    const s = await setup();
    const col = await newCollection(s.customer.id, s.price.id);
    const res = await api().post(`/v1/collections/${col.id}/void`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'voided', voided_at_date: t.clock.now().toISOString() });
    expect(await collectionEventTypes(col.id)).toEqual(['collection.created', 'collection.sent', 'collection.voided']);
    expectRefused(await api().post(`/v1/collections/${col.id}/void`), 'voided');

    const paid = await paidCollection();
    const refused = await api().post(`/v1/collections/${paid.col.id}/void`);
    expectRefused(refused, 'paid');
    expect(refused.body.error.message).toBe(`Cannot void collection ${paid.col.id}: its status is paid`);
  });

  test('mark_uncollectible: pending → uncollectible (still payable); paid → 409', async () => {
    const s = await setup();
    const col = await newCollection(s.customer.id, s.price.id);
    const res = await api().post(`/v1/collections/${col.id}/mark_uncollectible`);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('uncollectible');
    expect(await collectionEventTypes(col.id)).toEqual(['collection.created', 'collection.sent', 'collection.uncollectible']);
    expectRefused(await api().post(`/v1/collections/${col.id}/mark_uncollectible`), 'uncollectible');
    const paid = await pay(col.id);
    expect(paid.status).toBe(200);
    expect(paid.body.status).toBe('paid');
    expectRefused(await api().post(`/v1/collections/${col.id}/mark_uncollectible`), 'paid');
  });

  test('send: collection.sent again; a paid or voided collection is 409', async () => {
    const s = await setup();
    const col = await newCollection(s.customer.id, s.price.id);
    const res = await api().post(`/v1/collections/${col.id}/send`);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('pending');
    expect(await collectionEventTypes(col.id)).toEqual(['collection.created', 'collection.sent', 'collection.sent']);

    // A charge collection is not sent at creation, but can be sent.
    const charge = (await api().post('/v1/collections', { customer: s.customer.id, items: [{ price: s.price.id }], collection_method: 'charge' })).body;
    expect((await api().post(`/v1/collections/${charge.id}/send`)).status).toBe(200);
    expect(await collectionEventTypes(charge.id)).toEqual(['collection.created', 'collection.sent']);

    await pay(col.id);
    expectRefused(await api().post(`/v1/collections/${col.id}/send`), 'paid');
    await api().post(`/v1/collections/${charge.id}/void`);
    expectRefused(await api().post(`/v1/collections/${charge.id}/send`), 'voided');
  });
});

describe('refunds', () => {
  test('full refund: refunded, collection.refunded, the charge shows it', async () => {
    const { col } = await paidCollection('49900');
    const res = await api().post(`/v1/collections/${col.id}/refund`, { reason: 'requested_by_customer' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'refunded', amount_refunded: '49900.00', total: '49900.00' });
    const types = await collectionEventTypes(col.id);
    expect(types).toEqual(['collection.created', 'collection.sent', 'collection.paid', 'collection.refunded']);
    const [charge] = await charges(col.id);
    expect(charge).toMatchObject({ status: 'succeeded', amount_refunded: '49900.00', refunded: true });
    expectRefused(await api().post(`/v1/collections/${col.id}/refund`, {}), 'refunded');
    expectRefused(await pay(col.id), 'refunded', 'collection_already_paid');
  });

  test('partial refunds add up; more than what is left is 400; the last part makes it refunded', async () => {
    const { col } = await paidCollection('49900');
    const part = await api().post(`/v1/collections/${col.id}/refund`, { amount: '10000' });
    expect(part.status).toBe(200);
    expect(part.body).toMatchObject({ status: 'paid', amount_refunded: '10000.00' });
    const over = await api().post(`/v1/collections/${col.id}/refund`, { amount: '39900.01' });
    expect(over.status).toBe(400);
    expect(over.body.error).toMatchObject({ code: 'parameter_invalid', param: 'amount' });
    expect(over.body.error.message).toContain('39900.00');
    const tooPrecise = await api().post(`/v1/collections/${col.id}/refund`, { amount: '1.001' });
    expect(tooPrecise.status).toBe(400);
    expect(tooPrecise.body.error.param).toBe('amount');
    const zero = await api().post(`/v1/collections/${col.id}/refund`, { amount: '0' });
    expect(zero.status).toBe(400);
    expect((await api().get(`/v1/collections/${col.id}`)).body.amount_refunded).toBe('10000.00');
    const [charge] = await charges(col.id);
    expect(charge).toMatchObject({ amount_refunded: '10000.00', refunded: false });

    const rest = await api().post(`/v1/collections/${col.id}/refund`, { amount: '39900.00' });
    expect(rest.status).toBe(200);
    expect(rest.body).toMatchObject({ status: 'refunded', amount_refunded: '49900.00' });
    const refunds = await feed(`object_id=${col.id}&type=collection.refunded`);
    expect(refunds.map((e) => [e.data.object.status, e.data.object.amount_refunded])).toEqual([
      ['paid', '10000.00'],
      ['refunded', '49900.00'],
    ]);
  });

  test('mark_refunded records a refund made elsewhere', async () => {
    const { col } = await paidCollection('20000');
    const res = await api().post(`/v1/collections/${col.id}/mark_refunded`, { amount: '5000' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'paid', amount_refunded: '5000.00' });
    const all = await api().post(`/v1/collections/${col.id}/mark_refunded`, {});
    expect(all.body).toMatchObject({ status: 'refunded', amount_refunded: '20000.00' });
    expect(await collectionEventTypes(col.id)).toEqual(['collection.created', 'collection.sent', 'collection.paid', 'collection.refunded', 'collection.refunded']);
  });
});

describe('items and discounts', () => {
  test('update/items replaces the items and recomputes the totals; recurring prices refused', async () => {
    const s = await setup('49900');
    const col = await newCollection(s.customer.id, s.price.id);
    const res = await api().post(`/v1/collections/${col.id}/update/items`, { items: [{ price: s.setupFee.id, quantity: 3 }, { price: s.price.id }] });
    expect(res.status).toBe(200);
    expect(res.body.items.map((i: Doc) => [i.price.id, i.quantity, i.subtotal])).toEqual([
      [s.setupFee.id, 3, '30000.00'],
      [s.price.id, 1, '49900.00'],
    ]);
    expect(res.body).toMatchObject({ subtotal: '79900.00', total: '79900.00', status: 'pending' });
    expect((await api().get(`/v1/collections/${col.id}`)).body).toEqual(res.body);
    expect(await collectionEventTypes(col.id)).toEqual(['collection.created', 'collection.sent', 'collection.updated']);

    const recurring = await api().post(`/v1/collections/${col.id}/update/items`, { items: [{ price: s.monthly.id }] });
    expect(recurring.status).toBe(400);
    expect(recurring.body.error.param).toBe('items[0][price]');
    const empty = await api().post(`/v1/collections/${col.id}/update/items`, { items: [] });
    expect(empty.status).toBe(400);
    expect((await api().get(`/v1/collections/${col.id}`)).body.total).toBe('79900.00');
  });

  test('update/discounts: percent and amount, totals exact; delete one discount recomputes', async () => {
    const s = await setup('49900');
    const col = await newCollection(s.customer.id, s.price.id);
    const pct = await api().post(`/v1/collections/${col.id}/update/discounts`, { discounts: [{ code: 'TEN', percent: '10' }] });
    expect(pct.status).toBe(200);
    expect(pct.body).toMatchObject({ subtotal: '49900.00', total: '44910.00' });
    expect(pct.body.discounts).toEqual([{ id: expect.stringMatching(/^sd_/), code: 'TEN', amount: null, percent: '10' }]);
    expect(pct.body.discount_amounts).toEqual({ [pct.body.discounts[0].id]: '4990.00' });

    const amt = await api().post(`/v1/collections/${col.id}/update/discounts`, { discounts: [{ code: 'FIVEK', amount: '5000' }] });
    expect(amt.body).toMatchObject({ total: '44900.00' });
    expect(amt.body.discounts).toEqual([{ id: expect.stringMatching(/^sd_/), code: 'FIVEK', amount: '5000.00', percent: null }]);

    const both = await api().post(`/v1/collections/${col.id}/update/discounts`, {
      discounts: [
        { code: 'FIVEK', amount: '5000' },
        { code: 'TEN', percent: '10' },
      ],
    });
    expect(both.status).toBe(200);
    // 49900 − 5000 − 10% of 49900 (4990) = 39910
    expect(both.body.total).toBe('39910.00');
    const [five, ten] = both.body.discounts;

    const deleted = await api().delete(`/v1/collections/${col.id}/discounts/${five.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.discounts.map((d: Doc) => d.id)).toEqual([ten.id]);
    expect(deleted.body.total).toBe('44910.00');
    const missing = await api().delete(`/v1/collections/${col.id}/discounts/${five.id}`);
    expect(missing.status).toBe(404);

    const cleared = await api().post(`/v1/collections/${col.id}/update/discounts`, { discounts: [] });
    expect(cleared.body).toMatchObject({ discounts: [], total: '49900.00' });

    const bothKinds = await api().post(`/v1/collections/${col.id}/update/discounts`, { discounts: [{ code: 'X', amount: '1', percent: '1' }] });
    expect(bothKinds.status).toBe(400);
    expect(bothKinds.body.error.param).toBe('discounts[0]');
    const overHundred = await api().post(`/v1/collections/${col.id}/update/discounts`, { discounts: [{ code: 'X', percent: '101' }] });
    expect(overHundred.status).toBe(400);
    expect(overHundred.body.error.param).toBe('discounts[0][percent]');

    // The amount paid is the discounted total.
    await api().post(`/v1/collections/${col.id}/update/discounts`, { discounts: [{ code: 'TEN', percent: '10' }] });
    const paid = await pay(col.id);
    expect(paid.body).toMatchObject({ status: 'paid', total: '44910.00' });
    expect((await charges(col.id))[0].amount).toBe('44910.00');
  });

  test('discounts at creation', async () => {
    const s = await setup('49900');
    const col = await newCollection(s.customer.id, s.price.id, { discounts: [{ code: 'TEN', percent: '10' }] });
    expect(col).toMatchObject({ subtotal: '49900.00', total: '44910.00' });
  });
});

describe('operations refused in states where they make no sense (409 naming the state)', () => {
  test('voided, pending, paid and processing collections', async () => {
    const s = await setup();
    const voided = await newCollection(s.customer.id, s.price.id);
    await api().post(`/v1/collections/${voided.id}/void`);
    expectRefused(await pay(voided.id), 'voided');
    expectRefused(await pay(voided.id, { paid_out_of_band: true }), 'voided');
    expectRefused(await api().post(`/v1/collections/${voided.id}/update/items`, { items: [{ price: s.price.id }] }), 'voided');
    expectRefused(await api().post(`/v1/collections/${voided.id}/update/discounts`, { discounts: [] }), 'voided');
    expectRefused(await api().post(`/v1/collections/${voided.id}/mark_uncollectible`), 'voided');
    expectRefused(await api().post(`/v1/collections/${voided.id}/refund`, {}), 'voided');

    const pending = await newCollection(s.customer.id, s.price.id);
    expectRefused(await api().post(`/v1/collections/${pending.id}/refund`, {}), 'pending');
    expectRefused(await api().post(`/v1/collections/${pending.id}/mark_refunded`, {}), 'pending');
    expectRefused(await api().post(`/v1/test_helpers/collections/${pending.id}/settle`), 'pending');

    const paid = await paidCollection();
    expectRefused(await pay(paid.col.id), 'paid', 'collection_already_paid');
    expectRefused(await pay(paid.col.id, { paid_out_of_band: true }), 'paid', 'collection_already_paid');
    expectRefused(await api().post(`/v1/collections/${paid.col.id}/update/items`, { items: [{ price: paid.price.id }] }), 'paid');
    expectRefused(await api().post(`/v1/collections/${paid.col.id}/update/discounts`, { discounts: [{ code: 'LATE', percent: '5' }] }), 'paid');
    expectRefused(await api().delete(`/v1/collections/${paid.col.id}/discounts/sd_any`), 'paid');

    const processing = await newCollection(s.customer.id, s.price.id);
    await pay(processing.id, { payment_information: { gateway: 'gateway_a', type: 'pse', bank_code: '1007' } });
    expectRefused(await api().post(`/v1/collections/${processing.id}/void`), 'processing');
    expectRefused(await api().post(`/v1/collections/${processing.id}/refund`, {}), 'processing');
    expectRefused(await api().post(`/v1/collections/${processing.id}/update/items`, { items: [{ price: s.price.id }] }), 'processing');
    expectRefused(await pay(processing.id, { paid_out_of_band: true }), 'processing', 'payment_in_progress');

    // None of the refusals changed anything.
    expect((await api().get(`/v1/collections/${voided.id}`)).body.status).toBe('voided');
    expect((await api().get(`/v1/collections/${pending.id}`)).body).toMatchObject({ status: 'pending', amount_refunded: '0.00' });
    expect((await api().get(`/v1/collections/${paid.col.id}`)).body).toMatchObject({ status: 'paid', total: '49900.00', collection_attempts: 1 });
    expect((await charges(paid.col.id))).toHaveLength(1);
  });
});

describe('test helpers', () => {
  test('with a live key: 403', async () => {
    const s = await setup();
    const col = await newCollection(s.customer.id, s.price.id);
    for (const path of ['settle', 'fail', 'customer_payment']) {
      const res = await t.as(liveKey).post(`/v1/test_helpers/collections/${col.id}/${path}`, {});
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ code: 'test_mode_only' });
    }
  });

  test('customer_payment pays on the hosted page (initiated by the customer)', async () => {
    const s = await setup();
    const col = await newCollection(s.customer.id, s.price.id);
    const res = await api().post(`/v1/test_helpers/collections/${col.id}/customer_payment`, {});
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'paid', payment_method: expect.stringMatching(/^pm_/) });
    const tx = await api().get(`/v1/transactions/${res.body.latest_transaction}`);
    expect(tx.body).toMatchObject({ initiated_by: 'customer', status: 'succeeded' });
  });
});
