import { jest } from '@jest/globals';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import { loadConfig } from '#platform/config.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { billingSetup, card } from '../support/billing-fixtures.js';
import { advance, clockAndCustomer, getSub } from '../support/lifecycle.js';

/**
 * The spec's "documented in full" collection endpoints: `POST /v1/collections/{id}/partial_payment`,
 * `POST /v1/collections/{id}/update/total` (both deprecated) and
 * `POST /v1/customers/{id}/register_invoices_payment`.
 */
let t: TestApp;
let key: string;
let checkoutUrl: string;

beforeAll(async () => {
  t = await startTestApp();
  key = (await t.account('Documented endpoints merchant')).test_key;
  checkoutUrl = loadConfig({ DATA_DIR: t.dataDir }).checkoutUrl;
});
afterAll(() => t.close());

const api = () => t.as(key);

type Evt = { id: string; type: string; created: string; data: { object: Record<string, any> } };
type Doc = Record<string, any>;

/** Every feed entry matching `query`, oldest first. */
async function feed(query: string): Promise<Evt[]> {
  const seen: Evt[] = [];
  let cursor: string | undefined;
  for (let guard = 0; guard < 100; guard++) {
    const res = await api().get(`/v1/events?limit=100&${query}${cursor ? `&starting_after=${cursor}` : ''}`);
    expect(res.status).toBe(200);
    seen.push(...res.body.data);
    if (!res.body.has_more) return seen;
    cursor = res.body.data[res.body.data.length - 1].id;
  }
  throw new Error('feed did not end');
}

const typesOf = async (id: string) => (await feed(`object_id=${id}`)).map((e) => e.type);

const prices = new Map<string, string>();
/** A one-time COP price of `unit_price` (one per amount, made once). */
async function price(unit_price: string): Promise<string> {
  if (!prices.has(unit_price)) {
    const product = (await api().post('/v1/products', { name: `Item ${unit_price}` })).body;
    const res = await api().post('/v1/prices', { product_id: product.id, type: 'one_time', unit_price, currency: 'COP' });
    expect(res.status).toBe(200);
    prices.set(unit_price, res.body.id);
  }
  return prices.get(unit_price)!;
}

/** A standalone collection of one item of `unit_price` COP (collect, `days` days, unless `extra` says otherwise). */
async function collection(customer: string, unit_price: string, days: number | null = 7, extra: object = {}): Promise<Doc> {
  const body = days === null ? { collection_method: 'charge' } : { collection_method: 'collect', days_until_due: days };
  const res = await api().post('/v1/collections', { customer, items: [{ price: await price(unit_price) }], meta_data: { order: 'A-1' }, ...body, ...extra });
  expect(res.status).toBe(200);
  return res.body;
}

const getCol = async (id: string): Promise<Doc> => {
  const res = await api().get(`/v1/collections/${id}`);
  expect(res.status).toBe(200);
  return res.body;
};

async function customerCollections(customer: string): Promise<Doc[]> {
  const res = await api().get(`/v1/collections?customer=${customer}&limit=100`);
  expect(res.status).toBe(200);
  return res.body.data;
}

const partialPayment = (id: string, body: object) => api().post(`/v1/collections/${id}/partial_payment`, body);
const updateTotal = (id: string, total: string) => api().post(`/v1/collections/${id}/update/total`, { total });
const register = (customer: string, body: object) => api().post(`/v1/customers/${customer}/register_invoices_payment`, body);

/** What a rejection must leave as it was: the collection as GET shows it and its feed. */
async function snapshot(ids: string[]) {
  return Promise.all(ids.map(async (id) => ({ doc: await getCol(id), types: await typesOf(id) })));
}

describe('POST /v1/collections/{id}/partial_payment', () => {
  test('the total becomes the amount; subtotal and items are kept; the partial payment is recorded (collection.partial_payment_defined)', async () => {
    const { customer } = await billingSetup(api());
    const col = await collection(customer.id, '49900');
    const res = await partialPayment(col.id, { amount: '30000' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: col.id,
      object: 'collection',
      status: 'pending',
      total: '30000.00',
      subtotal: '49900.00',
      partial_payment: { original_total: '49900.00', amount: '30000.00', balance: '19900.00', balance_collection: null },
      balance_of: null,
    });
    expect(res.body.items).toEqual(col.items);
    expect(await getCol(col.id)).toEqual(res.body);
    expect(await typesOf(col.id)).toEqual(['collection.created', 'collection.sent', 'collection.partial_payment_defined']);
    const [event] = await feed('type=collection.partial_payment_defined&object_id=' + col.id);
    expect(event.data.object).toMatchObject({ id: col.id, total: '30000.00' });
    // Only one collection: no balance collection was asked for.
    expect(await customerCollections(customer.id)).toHaveLength(1);
    // The customer then pays the partial amount.
    const paid = await api().post(`/v1/collections/${col.id}/pay`, { payment_information: card() });
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ status: 'paid', total: '30000.00' });
  });

  test('create_collection_with_balance: a collection for the rest, without items, due days_until_due later, created and sent', async () => {
    const { customer } = await billingSetup(api());
    const col = await collection(customer.id, '49900');
    const res = await partialPayment(col.id, { amount: '30000.50', create_collection_with_balance: true, days_until_due: 10, collection_rule_id: 'rule_7' });
    expect(res.status).toBe(200);
    const balanceId = res.body.partial_payment.balance_collection;
    expect(balanceId).toMatch(/^col_/);
    expect(res.body).toMatchObject({ id: col.id, total: '30000.50', partial_payment: { original_total: '49900.00', amount: '30000.50', balance: '19899.50' } });
    const balance = await getCol(balanceId);
    expect(balance).toMatchObject({
      object: 'collection',
      status: 'pending',
      items: null,
      discounts: [],
      subtotal: '19899.50',
      total: '19899.50',
      description: `Balance of ${col.id}`,
      collection_method: 'collect',
      type: 'invoice',
      // 10 calendar days after today in Bogotá (Nov 23): Dec 3, until its end there.
      due_date: '2026-12-04T04:59:59.999Z',
      collection_rule_id: 'rule_7',
      balance_of: col.id,
      customer: customer.id,
      subscription: null,
      currency: 'COP',
      meta_data: { order: 'A-1' },
      checkout_url: `${checkoutUrl}/col/${balanceId}`,
      partial_payment: null,
      amount_applied: '0.00',
      billing_reason: 'partial_payment_balance',
      invoice: null,
    });
    expect(await typesOf(balanceId)).toEqual(['collection.created', 'collection.sent']);
    expect((await customerCollections(customer.id)).map((c) => c.id).sort()).toEqual([col.id, balanceId].sort());
    // The balance collection is paid like any other.
    const paid = await api().post(`/v1/collections/${balanceId}/pay`, { paid_out_of_band: true });
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ status: 'paid', total: '19899.50' });
  });

  test('the spec rejection row: not type invoice with collection_method collect → 400, nothing written', async () => {
    const { customer } = await billingSetup(api());
    const charge = await collection(customer.id, '49900', null);
    const before = await snapshot([charge.id]);
    const res = await partialPayment(charge.id, { amount: '100', create_collection_with_balance: true, days_until_due: 3 });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      type: 'invalid_request_error',
      code: 'partial_payment_not_allowed',
      message: `partial_payment is only valid for a collection with type invoice and collection_method collect; collection ${charge.id} has type invoice and collection_method charge`,
      param: null,
    });
    expect(await snapshot([charge.id])).toEqual(before);
    expect(await customerCollections(customer.id)).toHaveLength(1);
  });

  test('a state that does not allow it is 409 naming the state; bad amounts and a missing days_until_due are 400; nothing written', async () => {
    const { customer } = await billingSetup(api());
    const paid = await collection(customer.id, '49900');
    expect((await api().post(`/v1/collections/${paid.id}/pay`, { paid_out_of_band: true })).status).toBe(200);
    let res = await partialPayment(paid.id, { amount: '100' });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'invalid_state', message: `Cannot define a partial payment on collection ${paid.id}: its status is paid` });

    const col = await collection(customer.id, '49900');
    const before = await snapshot([col.id]);
    const rejections: Array<[object, number, string, string, string]> = [
      [{ amount: '49900' }, 400, 'parameter_invalid', 'amount', `amount must be less than the total of collection ${col.id} (49900.00 COP)`],
      [{ amount: '0' }, 400, 'parameter_invalid', 'amount', 'amount must be a positive decimal amount'],
      [{ amount: '1.001' }, 400, 'parameter_invalid', 'amount', 'amount has more decimals than COP allows (2)'],
      [{ amount: '100', create_collection_with_balance: true }, 400, 'parameter_missing', 'days_until_due', 'days_until_due is required with create_collection_with_balance'],
      [{ amount: '100', days_until_due: 3 }, 400, 'parameter_invalid', 'days_until_due', 'days_until_due is only allowed with create_collection_with_balance: true'],
      [{ amount: '100', collection_rule_id: 'r' }, 400, 'parameter_invalid', 'collection_rule_id', 'collection_rule_id is only allowed with create_collection_with_balance: true'],
    ];
    for (const [body, status, code, param, message] of rejections) {
      res = await partialPayment(col.id, body);
      expect({ body, status: res.status, error: res.body.error }).toEqual({ body, status, error: { type: 'invalid_request_error', code, param, message } });
    }
    res = await partialPayment(col.id, {});
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'parameter_missing', param: 'amount' });
    expect(await snapshot([col.id])).toEqual(before);
    expect(await customerCollections(customer.id)).toHaveLength(2);

    // Once per collection; and its items are not changed afterwards (the total was set directly).
    expect((await partialPayment(col.id, { amount: '40000' })).status).toBe(200);
    res = await partialPayment(col.id, { amount: '30000' });
    expect(res.status).toBe(409);
    expect(res.body.error.message).toBe(`Cannot define a partial payment on collection ${col.id}: a partial payment of 40000.00 is already defined on it`);
    res = await api().post(`/v1/collections/${col.id}/update/items`, { items: [{ price: await price('49900'), quantity: 2 }] });
    expect(res.status).toBe(409);
    expect((await getCol(col.id)).total).toBe('40000.00');
    expect((await partialPayment('col_doesnotexist', { amount: '1' })).status).toBe(404);
  });
});

describe('POST /v1/collections/{id}/update/total', () => {
  /** An invoice of 100000.00: collection A (items) partially paid 60000.00, balance collection B (40000.00, no items). */
  async function invoice() {
    const { customer } = await billingSetup(api());
    const a = await collection(customer.id, '100000');
    const res = await partialPayment(a.id, { amount: '60000', create_collection_with_balance: true, days_until_due: 5 });
    expect(res.status).toBe(200);
    const b = await getCol(res.body.partial_payment.balance_collection);
    expect(b).toMatchObject({ total: '40000.00', items: null, balance_of: a.id });
    return { customer, a: res.body as Doc, b };
  }

  const expectRefused = async (id: string, total: string, message: string, param: string | null, unchanged: string[]) => {
    const before = await snapshot(unchanged);
    const res = await updateTotal(id, total);
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({ type: 'invalid_request_error', code: 'collection_total_not_updatable', message, param });
    expect(await snapshot(unchanged)).toEqual(before);
  };

  test('the total of a collection without items changes within its invoice (collection.total_updated)', async () => {
    const { b } = await invoice();
    let res = await updateTotal(b.id, '25000');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: b.id, total: '25000.00', subtotal: '25000.00', items: null, status: 'pending' });
    expect(await getCol(b.id)).toEqual(res.body);
    expect(await typesOf(b.id)).toEqual(['collection.created', 'collection.sent', 'collection.total_updated']);
    // Up to the invoice's limit again: 40000 + 60000 = 100000.
    res = await updateTotal(b.id, '40000.00');
    expect(res.status).toBe(200);
    expect(res.body.total).toBe('40000.00');
  });

  test('1. status pending, past_due or uncollectible', async () => {
    const { b } = await invoice();
    expect((await api().post(`/v1/collections/${b.id}/mark_uncollectible`)).status).toBe(200);
    const res = await updateTotal(b.id, '30000');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'uncollectible', total: '30000.00' });
    expect((await api().post(`/v1/collections/${b.id}/void`)).status).toBe(200);
    await expectRefused(b.id, '20000', `Cannot update the total of collection ${b.id}: its status is voided; it must be pending, past_due or uncollectible`, null, [b.id]);
  });

  test('2. no items', async () => {
    const { a } = await invoice();
    await expectRefused(a.id, '50000', `Cannot update the total of collection ${a.id}: it has items; only a collection without items (items null) can have its total set`, null, [a.id]);
  });

  // 3. `type` is `invoice`: every collection of this service is (there is no invoicing provider), so
  // the condition cannot fail over HTTP; the decider's spec covers it.

  test('4. the new total is at most the invoice balance (invoice.total − invoice.total_paid)', async () => {
    const { a, b } = await invoice();
    expect((await api().post(`/v1/collections/${a.id}/pay`, { payment_information: card() })).body).toMatchObject({ status: 'paid', total: '60000.00' });
    await expectRefused(
      b.id,
      '40000.01',
      `Cannot update the total of collection ${b.id}: the new total 40000.01 is more than the balance of invoice ${a.id}: 40000.00 (invoice total 100000.00 less 60000.00 paid)`,
      'total',
      [a.id, b.id],
    );
    expect((await updateTotal(b.id, '39999.99')).status).toBe(200);
  });

  test('5. the new total plus the totals of the invoice other collections is at most invoice.total', async () => {
    const { a, b } = await invoice();
    await expectRefused(
      b.id,
      '40000.01',
      `Cannot update the total of collection ${b.id}: the new total 40000.01 plus the totals of the other collections of invoice ${a.id} (60000.00) is 100000.01, more than the invoice total 100000.00`,
      'total',
      [a.id, b.id],
    );
    // A voided collection no longer counts: the balance may then take the whole invoice.
    expect((await api().post(`/v1/collections/${a.id}/void`)).status).toBe(200);
    expect((await updateTotal(b.id, '100000')).body).toMatchObject({ total: '100000.00' });
    await expectRefused(
      b.id,
      '100000.01',
      `Cannot update the total of collection ${b.id}: the new total 100000.01 is more than the balance of invoice ${a.id}: 100000.00 (invoice total 100000.00 less 0.00 paid)`,
      'total',
      [b.id],
    );
  });

  test('a chain of partial payments is one invoice: the balance of a balance counts the whole chain', async () => {
    const { a, b } = await invoice();
    const res = await partialPayment(b.id, { amount: '30000', create_collection_with_balance: true, days_until_due: 3 });
    expect(res.status).toBe(200);
    const c = await getCol(res.body.partial_payment.balance_collection);
    expect(c).toMatchObject({ total: '10000.00', balance_of: b.id, description: `Balance of ${b.id}` });
    await expectRefused(
      c.id,
      '10000.01',
      `Cannot update the total of collection ${c.id}: the new total 10000.01 plus the totals of the other collections of invoice ${a.id} (90000.00) is 100000.01, more than the invoice total 100000.00`,
      'total',
      [a.id, b.id, c.id],
    );
    expect((await updateTotal(c.id, '5000')).body.total).toBe('5000.00');
  });

  test('a bad total is 400 parameter_invalid; an unknown collection 404', async () => {
    const { b } = await invoice();
    for (const bad of ['0', '1.001']) {
      const res = await updateTotal(b.id, bad);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param: 'total' });
    }
    expect((await api().post(`/v1/collections/${b.id}/update/total`, {})).body.error).toMatchObject({ code: 'parameter_missing', param: 'total' });
    expect((await updateTotal('col_doesnotexist', '1')).status).toBe(404);
  });
});

describe('POST /v1/customers/{id}/register_invoices_payment', () => {
  const START = '2026-05-01T10:00:00.000Z';
  const NOW = '2026-05-04T10:00:00.000Z';

  test('applied overdue-oldest first, then upcoming-nearest first; covered collections paid, the last lowered; a paid receipt answers', async () => {
    const { clock, customer } = await clockAndCustomer(api(), START);
    // Overdue: created in the opposite order of their due dates.
    const o2 = await collection(customer.id, '20000', 2); // due 05-03
    const o1 = await collection(customer.id, '10000', 1); // due 05-02
    const n1 = await collection(customer.id, '15000', null); // charge: no due date
    await advance(api(), clock.id, NOW);
    expect((await getCol(o1.id)).status).toBe('past_due');
    expect((await getCol(o2.id)).status).toBe('past_due');
    const o3 = await collection(customer.id, '5000', 0); // due today (May 4 in Bogotá, until its end): the nearest upcoming
    const u1 = await collection(customer.id, '40000', 10); // due 05-14
    const u2 = await collection(customer.id, '30000', 5); // due 05-09
    expect(o3).toMatchObject({ status: 'pending', due_date: '2026-05-05T04:59:59.999Z' });
    const all = [o1, o2, o3, u1, u2, n1].map((c) => c.id);

    // More than the open balance (120000.00): 400, nothing written.
    const before = await snapshot(all);
    let res = await register(customer.id, { amount: '120000.01' });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      type: 'invalid_request_error',
      code: 'amount_exceeds_balance',
      message: `amount 120000.01 is more than the open balance of customer ${customer.id}: 120000.00 COP over 6 collections`,
      param: 'amount',
    });
    for (const bad of ['0', '1.001']) {
      res = await register(customer.id, { amount: bad });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param: 'amount' });
    }
    expect(await snapshot(all)).toEqual(before);
    expect(await customerCollections(customer.id)).toHaveLength(6);

    res = await register(customer.id, { amount: '70000' });
    expect(res.status).toBe(200);
    const receipt = res.body;
    expect(receipt).toMatchObject({
      object: 'collection',
      status: 'paid',
      items: null,
      total: '70000.00',
      subtotal: '70000.00',
      currency: 'COP',
      customer: customer.id,
      subscription: null,
      description: 'Payment registered for 5 collections',
      paid_out_of_band: true,
      paid_date: NOW,
      created_date: '2026-05-04 10:00:00',
      test_clock: clock.id,
      billing_reason: 'invoices_payment',
      applied_to: [
        { collection: o1.id, amount: '10000.00' },
        { collection: o2.id, amount: '20000.00' },
        { collection: o3.id, amount: '5000.00' },
        { collection: u2.id, amount: '30000.00' },
        { collection: u1.id, amount: '5000.00' },
      ],
    });
    expect(await getCol(receipt.id)).toEqual(receipt);
    expect(await typesOf(receipt.id)).toEqual(['collection.created', 'collection.paid']);

    for (const c of [o1, o2, o3, u2]) {
      expect(await getCol(c.id)).toMatchObject({ status: 'paid', paid_out_of_band: true, paid_by: receipt.id, paid_date: NOW, total: c.total, amount_applied: '0.00' });
    }
    expect(await getCol(u1.id)).toMatchObject({ status: 'pending', total: '35000.00', subtotal: '40000.00', amount_applied: '5000.00', paid_by: null });
    expect(await getCol(n1.id)).toMatchObject({ status: 'pending', total: '15000.00', amount_applied: '0.00' });
    const [applied] = await feed(`type=collection.payment_applied&object_id=${u1.id}`);
    expect(applied.data.object).toMatchObject({ id: u1.id, total: '35000.00', amount_applied: '5000.00' });

    // The feed's order: the applications in the order applied, then the receipt.
    const mine = new Set([...all, receipt.id]);
    const order = (await feed('type=collection.*'))
      .filter((e) => mine.has(e.data.object.id) && ['collection.paid', 'collection.payment_applied', 'collection.created'].includes(e.type) && e.created === NOW)
      .filter((e) => e.type !== 'collection.created' || e.data.object.id === receipt.id)
      .map((e) => `${e.type} ${e.data.object.id}`);
    expect(order).toEqual([
      `collection.paid ${o1.id}`,
      `collection.paid ${o2.id}`,
      `collection.paid ${o3.id}`,
      `collection.paid ${u2.id}`,
      `collection.payment_applied ${u1.id}`,
      `collection.created ${receipt.id}`,
      `collection.paid ${receipt.id}`,
    ]);

    // The rest exactly: u1's remaining 35000 then the collection without a due date.
    res = await register(customer.id, { amount: '50000.00' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'paid',
      total: '50000.00',
      description: 'Payment registered for 2 collections',
      applied_to: [
        { collection: u1.id, amount: '35000.00' },
        { collection: n1.id, amount: '15000.00' },
      ],
    });
    expect(await getCol(u1.id)).toMatchObject({ status: 'paid', paid_by: res.body.id, total: '35000.00', amount_applied: '5000.00' });
    expect(await getCol(n1.id)).toMatchObject({ status: 'paid', paid_by: res.body.id });

    // Nothing open any more: 400, nothing written.
    const count = (await customerCollections(customer.id)).length;
    res = await register(customer.id, { amount: '1' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'no_open_collections', message: `Customer ${customer.id} has no open collections (pending, past_due or uncollectible) to apply a payment to` });
    expect(await customerCollections(customer.id)).toHaveLength(count);
  });

  test('a subscription whose overdue collection is paid by the registered payment is back in good standing', async () => {
    const s = await billingSetup(api());
    const { clock, customer } = await clockAndCustomer(api(), START);
    const sub = (await api().post('/v1/subscriptions', { customer: customer.id, items: [{ price: s.monthly.id }], collection_method: 'collect', days_until_due: 2 })).body;
    expect(sub).toMatchObject({ status: 'active' });
    const later = await collection(customer.id, '10000', 30);
    await advance(api(), clock.id, NOW);
    expect((await getSub(api(), sub.id)).status).toBe('past_due');
    const res = await register(customer.id, { amount: '49900' });
    expect(res.status).toBe(200);
    expect(res.body.applied_to).toEqual([{ collection: sub.latest_collection, amount: '49900.00' }]);
    expect(res.body.description).toBe('Payment registered for 1 collection');
    expect(await getCol(sub.latest_collection)).toMatchObject({ status: 'paid', paid_by: res.body.id, subscription: sub.id });
    expect((await getSub(api(), sub.id)).status).toBe('active');
    expect(await getCol(later.id)).toMatchObject({ status: 'pending', total: '10000.00' });
  });

  test('racing payments: each collection is paid once, every amount applied is accounted for, a refused request writes nothing', async () => {
    const { customer } = await billingSetup(api());
    const cols = [await collection(customer.id, '10000', 1), await collection(customer.id, '10000', 2), await collection(customer.id, '10000', 3)];
    const receiptsBefore = (await customerCollections(customer.id)).length;
    // Two registered payments of 20000 (40000 for an open balance of 30000) and a direct payment, at once.
    const [x, y, direct] = await Promise.all([
      register(customer.id, { amount: '20000' }),
      register(customer.id, { amount: '20000' }),
      api().post(`/v1/collections/${cols[0].id}/pay`, { paid_out_of_band: true }),
    ]);
    const outcomes = [x, y].map((r) => r.status);
    for (const r of [x, y]) {
      if (r.status !== 200) {
        expect([400, 409]).toContain(r.status);
        expect(['amount_exceeds_balance', 'concurrent_update', 'no_open_collections']).toContain(r.body.error.code);
      }
    }
    expect(outcomes).toContain(200);
    const receipts = [x, y].filter((r) => r.status === 200).map((r) => r.body as Doc);
    expect((await customerCollections(customer.id)).length).toBe(receiptsBefore + receipts.length);
    const appliedTo = new Map<string, number>();
    for (const r of receipts) {
      expect(r).toMatchObject({ status: 'paid', total: '20000.00', items: null });
      const applied = r.applied_to.reduce((sum: number, a: Doc) => sum + Number(a.amount), 0);
      expect(applied).toBeLessThanOrEqual(20000);
      for (const a of r.applied_to) appliedTo.set(a.collection, (appliedTo.get(a.collection) ?? 0) + Number(a.amount));
    }
    for (const c of cols) {
      const now = await getCol(c.id);
      const paidDirectly = direct.status === 200 && c.id === cols[0].id;
      const fromReceipts = appliedTo.get(c.id) ?? 0;
      expect(Number(now.amount_applied)).toBe(now.status === 'paid' && now.paid_by ? fromReceipts - Number(now.total) : fromReceipts);
      if (now.status === 'paid') {
        // Paid once: by a receipt (the rest of it) or directly, never both.
        expect(paidDirectly && now.paid_by !== null).toBe(false);
        expect(fromReceipts + (paidDirectly ? Number(now.total) : 0)).toBe(10000);
      } else {
        expect(now.status).toBe('pending');
        expect(Number(now.total) + fromReceipts).toBe(10000);
      }
      expect(await typesOf(c.id).then((types) => types.filter((t) => t === 'collection.paid').length)).toBeLessThanOrEqual(1);
    }
  });

  /** Runs `interloper` (another request's write) just before the registered payment's application to `collectionId`, once. */
  function interleave(collectionId: string, interloper: () => Promise<unknown>) {
    const executor = t.app.get(AggregateExecutor);
    const original = executor.execute.bind(executor);
    let done = false;
    return jest.spyOn(executor, 'execute').mockImplementation((async (decider: any, stream: string, command: (now: Date) => any, ctx: any) => {
      const c = command(new Date());
      if (!done && c?.type === 'ApplyRegisteredPayment' && c.collectionId === collectionId) {
        done = true;
        await interloper();
      }
      return original(decider, stream, command, ctx);
    }) as any);
  }

  test('a concurrent payment before anything was applied: the request is decided again (here: now more than the balance, 400, nothing written)', async () => {
    const { customer } = await billingSetup(api());
    const cols = [await collection(customer.id, '10000', 1), await collection(customer.id, '10000', 2), await collection(customer.id, '10000', 3)];
    const spy = interleave(cols[0].id, () => api().post(`/v1/collections/${cols[0].id}/pay`, { paid_out_of_band: true }));
    try {
      const res = await register(customer.id, { amount: '25000' });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'amount_exceeds_balance', message: `amount 25000.00 is more than the open balance of customer ${customer.id}: 20000.00 COP over 2 collections` });
    } finally {
      spy.mockRestore();
    }
    expect(await getCol(cols[0].id)).toMatchObject({ status: 'paid', paid_by: null });
    for (const c of cols.slice(1)) expect(await getCol(c.id)).toMatchObject({ status: 'pending', total: '10000.00', amount_applied: '0.00' });
    expect(await customerCollections(customer.id)).toHaveLength(3);
    // Decided again on what is open then, a payment that fits is applied.
    const res = await register(customer.id, { amount: '15000' });
    expect(res.body.applied_to).toEqual([
      { collection: cols[1].id, amount: '10000.00' },
      { collection: cols[2].id, amount: '5000.00' },
    ]);
  });

  test('a concurrent payment midway: what was applied stands, the rest goes to what is still open, what finds none stays unapplied on the receipt', async () => {
    const { customer } = await billingSetup(api());
    const cols = [await collection(customer.id, '10000', 1), await collection(customer.id, '10000', 2), await collection(customer.id, '10000', 3)];
    const spy = interleave(cols[1].id, () => api().post(`/v1/collections/${cols[1].id}/pay`, { paid_out_of_band: true }));
    let res;
    try {
      res = await register(customer.id, { amount: '25000' });
    } finally {
      spy.mockRestore();
    }
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'paid',
      total: '25000.00',
      description: 'Payment registered for 2 collections',
      applied_to: [
        { collection: cols[0].id, amount: '10000.00' },
        { collection: cols[2].id, amount: '10000.00' },
      ],
    });
    expect(await getCol(cols[0].id)).toMatchObject({ status: 'paid', paid_by: res.body.id });
    expect(await getCol(cols[1].id)).toMatchObject({ status: 'paid', paid_by: null, paid_out_of_band: true });
    expect(await getCol(cols[2].id)).toMatchObject({ status: 'paid', paid_by: res.body.id });
  });

  test('an unknown customer is 404; a missing amount 400', async () => {
    expect((await register('cus_doesnotexist', { amount: '1' })).status).toBe(404);
    const { customer } = await billingSetup(api());
    const res = await register(customer.id, {});
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'parameter_missing', param: 'amount' });
  });
});
