import { startTestApp, type TestApp } from '../support/test-app.js';
import { billingSetup, card } from '../support/billing-fixtures.js';
import { PAYMENT_GATEWAY, type PaymentGateway } from '#payments/gateways/payment-gateway.port.js';

/**
 * The guarantee: however many pay requests race on one collection, at most one attempt runs at a
 * time and a collection is paid by exactly one successful charge.
 */
let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await startTestApp();
  key = (await t.account('Race merchant')).test_key;
});
afterAll(() => t.close());

const api = () => t.as(key);
type Doc = Record<string, any>;
type Res = { status: number; body: any; headers: Record<string, string> };

/** A standalone `charge` collection of 49900 COP, pending, for a fresh customer. */
async function chargeCollection(): Promise<{ col: Doc; customer: Doc }> {
  const s = await billingSetup(api());
  const product = (await api().post('/v1/products', { name: 'Race item' })).body;
  const price = (await api().post('/v1/prices', { product_id: product.id, type: 'one_time', unit_price: '49900' })).body;
  const res = await api().post('/v1/collections', { customer: s.customer.id, items: [{ price: price.id }], collection_method: 'charge' });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ status: 'pending', collection_method: 'charge', total: '49900.00' });
  return { col: res.body, customer: s.customer };
}

const pay = (id: string, body: object, headers: Record<string, string> = {}): Promise<Res> =>
  api().post(`/v1/collections/${id}/pay`, body, headers).then((r) => r as unknown as Res);

async function allCharges(collection: string): Promise<Doc[]> {
  const res = await api().get(`/v1/charges?collection=${collection}&limit=100`);
  expect(res.status).toBe(200);
  expect(res.body.has_more).toBe(false);
  return res.body.data;
}

async function events(query: string): Promise<Doc[]> {
  const res = await api().get(`/v1/events?limit=100&${query}`);
  expect(res.status).toBe(200);
  expect(res.body.has_more).toBe(false);
  return res.body.data;
}

const count = (xs: number[], n: number) => xs.filter((x) => x === n).length;

describe('exactly one charge per collection', () => {
  test('twenty concurrent pays with an approving card: one 200, nineteen 409, one succeeded charge, one collection.paid', async () => {
    const { col, customer } = await chargeCollection();
    const results = await Promise.all(Array.from({ length: 20 }, () => pay(col.id, { payment_information: card('approve') })));
    const statuses = results.map((r) => r.status);
    expect(count(statuses, 200)).toBe(1);
    expect(count(statuses, 409)).toBe(19);
    for (const r of results.filter((x) => x.status === 409)) {
      expect(r.body.error.type).toBe('invalid_request_error');
      expect(['payment_in_progress', 'collection_already_paid']).toContain(r.body.error.code);
      expect(r.body.error.message).toContain(col.id);
    }
    const ok = results.find((r) => r.status === 200)!;
    expect(ok.body).toMatchObject({ id: col.id, status: 'paid', collection_attempts: 1 });

    const after = await api().get(`/v1/collections/${col.id}`);
    expect(after.body).toMatchObject({ status: 'paid', collection_attempts: 1, collecting: false, payment_method: ok.body.payment_method });

    const charges = await allCharges(col.id);
    expect(charges).toHaveLength(1);
    expect(charges[0]).toMatchObject({ status: 'succeeded', amount: '49900.00' });
    expect((await api().get(`/v1/transactions?collection=${col.id}`)).body.data).toHaveLength(1);

    const paid = await events(`object_id=${col.id}&type=collection.paid`);
    expect(paid).toHaveLength(1);
    expect(paid[0].data.object).toMatchObject({ id: col.id, status: 'paid' });
    const chargePaid = (await events('type=charge.paid')).filter((e) => e.data.object.collection === col.id);
    expect(chargePaid).toHaveLength(1);

    // Only one payment method was saved from the twenty identical one-off cards.
    const methods = (await api().get(`/v1/customers/${customer.id}/payment_methods`)).body.data;
    expect(methods.map((m: Doc) => m.id)).toEqual([ok.body.payment_method]);
    expect((await api().get(`/v1/customers/${customer.id}`)).body.default_payment_method).toBe(ok.body.payment_method);
  });

  test('twenty concurrent pays with a stored method: the same guarantee', async () => {
    const { col: first, customer } = await chargeCollection();
    const pm = (await pay(first.id, { payment_information: card('approve') })).body.payment_method;
    const product = (await api().post('/v1/products', { name: 'Second' })).body;
    const price = (await api().post('/v1/prices', { product_id: product.id, type: 'one_time', unit_price: '15000' })).body;
    const col = (await api().post('/v1/collections', { customer: customer.id, items: [{ price: price.id }], collection_method: 'charge' })).body;

    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => pay(col.id, i % 2 ? { payment_method: pm } : {})));
    expect(count(results.map((r) => r.status), 200)).toBe(1);
    expect(count(results.map((r) => r.status), 409)).toBe(19);
    expect((await allCharges(col.id)).map((c) => [c.status, c.amount, c.payment_method])).toEqual([['succeeded', '15000.00', pm]]);
    expect(await events(`object_id=${col.id}&type=collection.paid`)).toHaveLength(1);
  });

  test('the same pay retried 5 times at once with one Idempotency-Key: the same response each time, one charge', async () => {
    const { col } = await chargeCollection();
    const headers = { 'Idempotency-Key': `pay-${col.id}` };
    const body = { payment_information: card('approve') };
    const results = await Promise.all(Array.from({ length: 5 }, () => pay(col.id, body, headers)));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    for (const r of results) expect(r.body).toEqual(results[0].body);
    expect(results[0].body).toMatchObject({ status: 'paid', collection_attempts: 1 });
    expect(results.filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(4);

    // A later retry replays too; the same key with another body is refused.
    const later = await pay(col.id, body, headers);
    expect(later.status).toBe(200);
    expect(later.body).toEqual(results[0].body);
    expect(later.headers['idempotent-replayed']).toBe('true');
    const reused = await pay(col.id, { payment_information: card('decline') }, headers);
    expect(reused.status).toBe(400);
    expect(reused.body.error).toMatchObject({ type: 'idempotency_error', code: 'idempotency_key_reused' });

    expect(await allCharges(col.id)).toHaveLength(1);
    expect(await events(`object_id=${col.id}&type=collection.paid`)).toHaveLength(1);
  });

  test('a declined pay retried with one Idempotency-Key replays the 402 without charging again', async () => {
    const { col } = await chargeCollection();
    const headers = { 'Idempotency-Key': `decline-${col.id}` };
    const results = await Promise.all(Array.from({ length: 5 }, () => pay(col.id, { payment_information: card('decline') }, headers)));
    expect(results.map((r) => r.status)).toEqual([402, 402, 402, 402, 402]);
    for (const r of results) expect(r.body).toEqual(results[0].body);
    expect(results[0].body.error).toMatchObject({ type: 'payment_error', code: 'card_declined', decline_code: 'generic_decline' });
    expect(await allCharges(col.id)).toHaveLength(1);
    expect((await api().get(`/v1/collections/${col.id}`)).body).toMatchObject({ status: 'pending', collection_attempts: 1 });
  });

  test('twenty concurrent pays with a declining card: every accepted attempt is its own failed transaction; never paid', async () => {
    const { col } = await chargeCollection();
    const results = await Promise.all(Array.from({ length: 20 }, () => pay(col.id, { payment_information: card('decline') })));
    const statuses = results.map((r) => r.status);
    const declined = results.filter((r) => r.status === 402);
    expect(declined.length).toBeGreaterThanOrEqual(1);
    expect(declined.length + count(statuses, 409)).toBe(20);
    for (const r of declined) expect(r.body.error).toMatchObject({ type: 'payment_error', code: 'card_declined', decline_code: 'generic_decline', collection: col.id });
    for (const r of results.filter((x) => x.status === 409)) expect(r.body.error.code).toBe('payment_in_progress');

    const after = (await api().get(`/v1/collections/${col.id}`)).body;
    expect(after).toMatchObject({ status: 'pending', collecting: false, paid_date: null, collection_attempts: declined.length });

    const charges = await allCharges(col.id);
    expect(charges).toHaveLength(declined.length);
    expect(charges.every((c) => c.status === 'failed' && c.failure_code === 'card_declined')).toBe(true);
    expect(new Set(charges.map((c) => c.transaction)).size).toBe(declined.length);
    expect(new Set(declined.map((r) => r.body.error.charge))).toEqual(new Set(charges.map((c) => c.id)));
    const txs = (await api().get(`/v1/transactions?collection=${col.id}&limit=100`)).body.data;
    expect(txs).toHaveLength(declined.length);
    expect(txs.every((x: Doc) => x.status === 'failed' && x.charges.length === 1)).toBe(true);

    expect(await events(`object_id=${col.id}&type=collection.paid`)).toEqual([]);
    expect(await events(`object_id=${col.id}&type=collection.payment_failed`)).toHaveLength(declined.length);

    // It can still be paid, once.
    const good = await pay(col.id, { payment_information: card('approve') });
    expect(good.status).toBe(200);
    expect(good.body).toMatchObject({ status: 'paid', collection_attempts: declined.length + 1 });
  });

  test('twenty concurrent pays with the flaky card: one transaction, a failed try and its successful retry', async () => {
    const { col } = await chargeCollection();
    const results = await Promise.all(Array.from({ length: 20 }, () => pay(col.id, { payment_information: card('flaky') })));
    const answers = results.map((r) => `${r.status} ${r.status === 200 ? r.body.status : r.body.error?.code}`);
    expect(count(results.map((r) => r.status), 200)).toBe(1);
    // The others are refused: while the attempt is in flight, or once the collection is paid (a request that arrives late).
    expect(answers.filter((a) => !a.startsWith('200') && a !== '409 payment_in_progress' && a !== '409 collection_already_paid')).toEqual([]);
    const charges = (await allCharges(col.id)).sort((a, b) => a.try - b.try);
    expect(charges.map((c) => [c.try, c.status])).toEqual([
      [1, 'failed'],
      [2, 'succeeded'],
    ]);
    expect(charges[0].transaction).toBe(charges[1].transaction);
    expect(await events(`object_id=${col.id}&type=collection.paid`)).toHaveLength(1);
  });

  test('pay racing void: exactly one of them wins', async () => {
    for (let round = 0; round < 5; round++) {
      const { col } = await chargeCollection();
      const [paid, voided] = await Promise.all([pay(col.id, { payment_information: card('approve') }), api().post(`/v1/collections/${col.id}/void`)]);
      const final = (await api().get(`/v1/collections/${col.id}`)).body;
      const charges = await allCharges(col.id);
      if (paid.status === 200) {
        expect(voided.status).toBe(409);
        expect(final.status).toBe('paid');
        expect(charges.map((c) => c.status)).toEqual(['succeeded']);
      } else {
        expect(paid.status).toBe(409);
        expect(voided.status).toBe(200);
        expect(final.status).toBe('voided');
        expect(charges).toEqual([]);
      }
    }
  });

  test('concurrent refunds never return more than was paid', async () => {
    const { col } = await chargeCollection();
    expect((await pay(col.id, { payment_information: card('approve') })).status).toBe(200);
    const results = await Promise.all(Array.from({ length: 20 }, () => api().post(`/v1/collections/${col.id}/refund`, { amount: '10000' })));
    const statuses = results.map((r) => r.status);
    // 49900 holds four refunds of 10000; the fifth would exceed what is left (9900).
    expect(count(statuses, 200)).toBe(4);
    expect(count(statuses, 400)).toBe(16);
    const after = (await api().get(`/v1/collections/${col.id}`)).body;
    expect(after).toMatchObject({ status: 'paid', amount_refunded: '40000.00' });
    expect(await events(`object_id=${col.id}&type=collection.refunded`)).toHaveLength(4);

    const full = await Promise.all(Array.from({ length: 10 }, () => api().post(`/v1/collections/${col.id}/refund`, {})));
    expect(count(full.map((r) => r.status), 200)).toBe(1);
    expect(count(full.map((r) => r.status), 409)).toBe(9);
    expect((await api().get(`/v1/collections/${col.id}`)).body).toMatchObject({ status: 'refunded', amount_refunded: '49900.00' });
  });
});

describe('an attempt left in flight (the process stopped before the gateway answered): one reconcile step, two callers', () => {
  /** A pay request whose gateway call never answers: the attempt is on disk, its outcome is not (as after a SIGKILL). */
  async function strandedAttempt(): Promise<Doc> {
    const { col } = await chargeCollection();
    const gateway = t.app.get<PaymentGateway>(PAYMENT_GATEWAY);
    const charge = gateway.charge;
    gateway.charge = async () => {
      throw new Error('the process stopped before the gateway answered');
    };
    try {
      expect((await pay(col.id, { payment_information: card() })).status).toBe(500);
    } finally {
      gateway.charge = charge;
    }
    // Logged as the 500's cause (kept by the test logger, not printed).
    expect(await t.logs.expectError(/unhandled error .*the process stopped before the gateway answered/)).toHaveLength(1);
    // The 500 answered without waiting for the read model: the attempt shows there once projected.
    let stranded = (await api().get(`/v1/collections/${col.id}`)).body;
    for (let i = 0; i < 100 && !stranded.collecting; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      stranded = (await api().get(`/v1/collections/${col.id}`)).body;
    }
    expect(stranded).toMatchObject({ status: 'pending', collecting: true });
    expect((await allCharges(col.id)).map((c) => c.status)).toEqual(['in_progress']);
    return stranded;
  }

  test('before 60 s a new pay is refused; after, the pay request finishes the stranded attempt (same charge, asked again) and charges nothing more', async () => {
    const col = await strandedAttempt();
    const refused = await pay(col.id, { payment_information: card() });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('payment_in_progress');
    const start = t.clock.now();
    t.clock.set(new Date(start.getTime() + 61_000));
    try {
      const again = await pay(col.id, { payment_information: card() });
      // The stranded attempt was the one to succeed: this request's own attempt is refused.
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('collection_already_paid');
      // The 409 answered without waiting for the read model (the error left the request before its
      // read-your-writes wait); the finished attempt shows there once the projections commit it.
      let seen = (await api().get(`/v1/collections/${col.id}`)).body;
      for (let i = 0; i < 100 && seen.status !== 'paid'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        seen = (await api().get(`/v1/collections/${col.id}`)).body;
      }
      expect(seen).toMatchObject({ status: 'paid', collecting: false });
      expect((await allCharges(col.id)).map((c) => c.status)).toEqual(['succeeded']);
      expect((await events(`object_id=${col.id}&type=collection.paid`)).length).toBe(1);
    } finally {
      t.clock.set(start);
    }
  });

  test('the scheduler\'s reconcile deadline, 60 s after the attempt, runs the same step', async () => {
    const col = await strandedAttempt();
    const start = t.clock.now();
    t.clock.set(new Date(start.getTime() + 61_000));
    try {
      await t.runDue();
      expect((await api().get(`/v1/collections/${col.id}`)).body).toMatchObject({ status: 'paid', collecting: false });
      expect((await allCharges(col.id)).map((c) => c.status)).toEqual(['succeeded']);
      // Once done, a pay finds nothing to reconcile and nothing to pay.
      expect((await pay(col.id, { payment_information: card() })).body.error.code).toBe('collection_already_paid');
      expect((await allCharges(col.id)).map((c) => c.status)).toEqual(['succeeded']);
    } finally {
      t.clock.set(start);
    }
  });
});
