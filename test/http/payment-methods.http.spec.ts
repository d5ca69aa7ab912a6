import { startTestApp, type TestApp } from '../support/test-app.js';
import { billingSetup, card, CARDS } from '../support/billing-fixtures.js';

let t: TestApp;
let key: string;
let liveKey: string;
beforeAll(async () => {
  t = await startTestApp();
  const account = await t.account('Payment methods merchant');
  key = account.test_key;
  liveKey = account.live_key;
});
afterAll(() => t.close());

const api = () => t.as(key);
type Doc = Record<string, any>;

const MASTERCARD = { number: '5555555555554444', exp_month: 3, exp_year: 2029, cvc: '321' };

/** A customer and a one-time price of 25000 COP. */
async function setup() {
  const s = await billingSetup(api());
  const product = (await api().post('/v1/products', { name: 'Thing' })).body;
  const price = (await api().post('/v1/prices', { product_id: product.id, type: 'one_time', unit_price: '25000' })).body;
  return { customer: s.customer as Doc, price: price as Doc };
}

async function newCollection(customer: string, price: string): Promise<Doc> {
  const res = await api().post('/v1/collections', { customer, items: [{ price }], collection_method: 'charge' });
  expect(res.status).toBe(200);
  return res.body;
}

const pay = (id: string, body: object) => api().post(`/v1/collections/${id}/pay`, body);

/** Pays a new collection with one-off `payment_information` and returns the saved payment method id. */
async function saveMethod(customer: string, price: string, info: object = card()): Promise<string> {
  const res = await pay((await newCollection(customer, price)).id, { payment_information: info });
  expect(res.status).toBe(200);
  expect(res.body.payment_method).toMatch(/^pm_/);
  return res.body.payment_method;
}

const defaultOf = async (customer: string) => (await api().get(`/v1/customers/${customer}`)).body.default_payment_method;
const listed = async (customer: string) => (await api().get(`/v1/customers/${customer}/payment_methods`)).body.data.map((m: Doc) => m.id);

/** Every key of a JSON value, at any depth. */
function keysOf(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) value.forEach((v) => keysOf(v, into));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      into.add(k);
      keysOf(v, into);
    }
  }
  return into;
}

function expectNoSecrets(body: unknown) {
  const text = JSON.stringify(body);
  expect(keysOf(body).has('token')).toBe(false);
  expect(text).not.toContain('simtok_');
  for (const c of [...Object.values(CARDS), MASTERCARD]) expect(text).not.toContain(c.number);
  expect(text).not.toMatch(/"(number|cvc)"/);
}

describe('GET /v1/payment_methods/{id}', () => {
  test('the saved card with its public details and no token anywhere', async () => {
    const s = await setup();
    const pm = await saveMethod(s.customer.id, s.price.id);
    const res = await api().get(`/v1/payment_methods/${pm}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: pm,
      object: 'payment_method',
      customer: s.customer.id,
      gateway: 'gateway_a',
      type: 'card',
      card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030 },
      wallet: null,
      fingerprint: expect.stringMatching(/^[0-9a-f]{16}$/),
      source: 'payment',
      status: 'active',
      meta_data: {},
      created_date: t.clock.now().toISOString().replace('T', ' ').slice(0, 19),
      is_test: true,
    });
    expectNoSecrets(res.body);
    expect((await api().get(`/v1/customers/${s.customer.id}/payment_methods`)).body.data).toEqual([res.body]);
  });

  test('unknown, other mode and other account: 404', async () => {
    const s = await setup();
    const pm = await saveMethod(s.customer.id, s.price.id);
    expect((await api().get('/v1/payment_methods/pm_nope')).status).toBe(404);
    expect((await t.as(liveKey).get(`/v1/payment_methods/${pm}`)).status).toBe(404);
    const other = await t.account('Other merchant');
    const res = await t.as(other.test_key).get(`/v1/payment_methods/${pm}`);
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: 'resource_missing' });
    expect((await t.as(other.test_key).post(`/v1/payment_methods/${pm}/delete`)).status).toBe(404);
    expect((await api().get(`/v1/payment_methods/${pm}`)).body.status).toBe('active');
  });

  test('a wallet is saved with its last four characters only', async () => {
    const s = await setup();
    const pm = await saveMethod(s.customer.id, s.price.id, { gateway: 'gateway_a', type: 'wallet_a', wallet: { account: '3001234567' } });
    const res = await api().get(`/v1/payment_methods/${pm}`);
    expect(res.body).toMatchObject({ type: 'wallet_a', card: null, wallet: { account_last4: '4567' } });
    expect(JSON.stringify(res.body)).not.toContain('3001234567');
  });
});

describe('POST /v1/payment_methods/{id}/update', () => {
  test('card expiry and meta_data', async () => {
    const s = await setup();
    const pm = await saveMethod(s.customer.id, s.price.id);
    const res = await api().post(`/v1/payment_methods/${pm}/update`, { exp_month: 4, exp_year: 2032, meta_data: { label: 'work' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: pm, card: { brand: 'visa', last4: '4242', exp_month: 4, exp_year: 2032 }, meta_data: { label: 'work' } });
    expect((await api().get(`/v1/payment_methods/${pm}`)).body).toEqual(res.body);
    const month = await api().post(`/v1/payment_methods/${pm}/update`, { exp_month: 9 });
    expect(month.body.card).toEqual({ brand: 'visa', last4: '4242', exp_month: 9, exp_year: 2032 });
    expectNoSecrets(month.body);

    const updates = (await api().get(`/v1/events?object_id=${pm}&type=payment_method.updated`)).body.data;
    expect(updates).toHaveLength(2);
    expect(updates[1].data.object.card.exp_month).toBe(9);
  });

  test('bad values and unknown fields are 400 and change nothing', async () => {
    const s = await setup();
    const pm = await saveMethod(s.customer.id, s.price.id);
    for (const [body, param] of [
      [{ exp_month: 13 }, 'exp_month'],
      [{ exp_year: 99 }, 'exp_year'],
      [{ exp_month: '4' }, 'exp_month'],
      [{ number: '4000000000000002' }, 'number'],
      [{ gateway: 'gateway_b' }, 'gateway'],
    ] as const) {
      const res = await api().post(`/v1/payment_methods/${pm}/update`, body);
      expect(res.status).toBe(400);
      expect(res.body.error.param).toBe(param);
    }
    // default can only be set to true; the whole request is refused (the expiry is not changed either).
    const notDefault = await api().post(`/v1/payment_methods/${pm}/update`, { exp_month: 5, default: false });
    expect(notDefault.status).toBe(400);
    expect(notDefault.body.error.param).toBe('default');
    expect((await api().get(`/v1/payment_methods/${pm}`)).body.card).toEqual({ brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030 });

    const wallet = await saveMethod(s.customer.id, s.price.id, { gateway: 'gateway_a', type: 'wallet_b', wallet: { account: 'ana@example.com' } });
    const noExpiry = await api().post(`/v1/payment_methods/${wallet}/update`, { exp_month: 1 });
    expect(noExpiry.status).toBe(400);
    expect(noExpiry.body.error.param).toBe('exp_month');
  });

  test('default: true switches the customer\'s default payment method', async () => {
    const s = await setup();
    const first = await saveMethod(s.customer.id, s.price.id, card('approve'));
    const second = await saveMethod(s.customer.id, s.price.id, { gateway: 'gateway_b', type: 'card', card: MASTERCARD });
    // The second card was saved but the customer already had a default.
    expect(await defaultOf(s.customer.id)).toBe(first);
    expect(new Set(await listed(s.customer.id))).toEqual(new Set([first, second]));

    const res = await api().post(`/v1/payment_methods/${second}/update`, { default: true });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: second, gateway: 'gateway_b', card: { brand: 'mastercard', last4: '4444' } });
    expect(await defaultOf(s.customer.id)).toBe(second);

    // The default is what a pay without a method charges.
    const col = await newCollection(s.customer.id, s.price.id);
    const paid = await pay(col.id, {});
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ status: 'paid', payment_method: second, payment_method_gateway: 'gateway_b' });

    expect((await api().post(`/v1/payment_methods/${first}/update`, { default: true })).status).toBe(200);
    expect(await defaultOf(s.customer.id)).toBe(first);
  });
});

describe('POST /v1/payment_methods/{id}/delete', () => {
  test('deleted: no longer listed, the customer\'s default cleared, cannot be paid with', async () => {
    const s = await setup();
    const pm = await saveMethod(s.customer.id, s.price.id);
    expect(await defaultOf(s.customer.id)).toBe(pm);

    const res = await api().post(`/v1/payment_methods/${pm}/delete`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: pm, object: 'payment_method', deleted: true });
    expect(await listed(s.customer.id)).toEqual([]);
    expect(await defaultOf(s.customer.id)).toBeNull();
    expect((await api().get(`/v1/payment_methods/${pm}`)).status).toBe(404);

    const col = await newCollection(s.customer.id, s.price.id);
    const withIt = await pay(col.id, { payment_method: pm });
    expect(withIt.status).toBe(400);
    expect(withIt.body.error).toMatchObject({ code: 'parameter_invalid', param: 'payment_method' });
    const byDefault = await pay(col.id, {});
    expect(byDefault.status).toBe(400);
    expect(byDefault.body.error).toMatchObject({ code: 'payment_method_required' });
    expect((await api().get(`/v1/collections/${col.id}`)).body).toMatchObject({ status: 'pending', collection_attempts: 0 });

    // Deleting again is harmless; updating a deleted method is refused.
    expect((await api().post(`/v1/payment_methods/${pm}/delete`)).body).toEqual({ id: pm, object: 'payment_method', deleted: true });
    const update = await api().post(`/v1/payment_methods/${pm}/update`, { exp_month: 1 });
    expect(update.status).toBe(409);
    expect(update.body.error.message).toContain('detached');
    const del = (await api().get(`/v1/events?object_id=${pm}&type=payment_method.deleted`)).body.data;
    expect(del).toHaveLength(1);
    expect(del[0].data.object).toMatchObject({ id: pm, status: 'detached', deleted: true });
    expectNoSecrets(del);
  });

  test('deleting a method that is not the default leaves the default alone', async () => {
    const s = await setup();
    const first = await saveMethod(s.customer.id, s.price.id);
    const second = await saveMethod(s.customer.id, s.price.id, { gateway: 'gateway_b', type: 'card', card: MASTERCARD });
    expect((await api().post(`/v1/payment_methods/${second}/delete`)).status).toBe(200);
    expect(await defaultOf(s.customer.id)).toBe(first);
    expect(await listed(s.customer.id)).toEqual([first]);
  });

  test('unknown method: 404', async () => {
    const res = await api().post('/v1/payment_methods/pm_nope/delete');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('resource_missing');
  });
});

describe('POST /v1/payment_methods/migrate', () => {
  const migrated = (customer: string, extra: object = {}) => ({
    customer,
    gateway: 'gateway_a',
    type: 'card',
    token: `simtok_approve_abc123${Math.random().toString(36).slice(2, 8)}`,
    card: { brand: 'visa', last4: '1881', exp_month: 7, exp_year: 2031 },
    ...extra,
  });

  test('a simulator token becomes a usable payment method (and the default of a customer without one)', async () => {
    const s = await setup();
    const body = migrated(s.customer.id, { token: 'simtok_approve_abc123', meta_data: { legacy_id: 'card_77' } });
    const res = await api().post('/v1/payment_methods/migrate', body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^pm_/),
      object: 'payment_method',
      customer: s.customer.id,
      gateway: 'gateway_a',
      type: 'card',
      card: { brand: 'visa', last4: '1881', exp_month: 7, exp_year: 2031 },
      wallet: null,
      fingerprint: null,
      source: 'migration',
      status: 'active',
      meta_data: { legacy_id: 'card_77' },
      created_date: t.clock.now().toISOString().replace('T', ' ').slice(0, 19),
      is_test: true,
    });
    expectNoSecrets(res.body);
    const pm = res.body.id;
    expect(await defaultOf(s.customer.id)).toBe(pm);
    expect(await listed(s.customer.id)).toEqual([pm]);

    const col = await newCollection(s.customer.id, s.price.id);
    const paid = await pay(col.id, { payment_method: pm });
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ status: 'paid', payment_method: pm, payment_method_type: 'card' });
    const byDefault = await pay((await newCollection(s.customer.id, s.price.id)).id, {});
    expect(byDefault.body).toMatchObject({ status: 'paid', payment_method: pm });
  });

  test('default: true takes over from an existing default; without it the existing default stays', async () => {
    const s = await setup();
    const existing = await saveMethod(s.customer.id, s.price.id);
    const quiet = await api().post('/v1/payment_methods/migrate', migrated(s.customer.id));
    expect(quiet.status).toBe(200);
    expect(await defaultOf(s.customer.id)).toBe(existing);
    const loud = await api().post('/v1/payment_methods/migrate', migrated(s.customer.id, { default: true }));
    expect(loud.status).toBe(200);
    expect(await defaultOf(s.customer.id)).toBe(loud.body.id);
    expect(new Set(await listed(s.customer.id))).toEqual(new Set([existing, quiet.body.id, loud.body.id]));
  });

  test('a foreign token is imported as given, but paying with it fails at the gateway: 402 invalid_token', async () => {
    const s = await setup();
    const res = await api().post('/v1/payment_methods/migrate', migrated(s.customer.id, { token: 'tok_from_the_old_processor_42' }));
    expect(res.status).toBe(200);
    const col = await newCollection(s.customer.id, s.price.id);
    const paid = await pay(col.id, { payment_method: res.body.id });
    expect(paid.status).toBe(402);
    expect(paid.body.error).toMatchObject({ type: 'payment_error', code: 'invalid_token', collection: col.id });
    expect(JSON.stringify(paid.body)).not.toContain('tok_from_the_old_processor_42');
    expect((await api().get(`/v1/collections/${col.id}`)).body).toMatchObject({ status: 'pending', collection_attempts: 1 });
    const declined = await pay(col.id, { payment_method: (await api().post('/v1/payment_methods/migrate', migrated(s.customer.id, { token: 'simtok_decline_zz9' }))).body.id });
    expect(declined.status).toBe(402);
    expect(declined.body.error).toMatchObject({ code: 'card_declined', decline_code: 'generic_decline' });
  });

  test('refused: unknown customer, gateway not configured, card without details, non-tokenizable type, unknown fields', async () => {
    const s = await setup();
    const unknown = await api().post('/v1/payment_methods/migrate', migrated('cus_nope'));
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: 'resource_missing', param: 'customer' });

    const account = await t.account('Migrate without gateway_d');
    const k = account.test_key;
    const other = await billingSetup(t.as(k));
    expect((await t.as(k).delete('/v1/account/gateways/gateway_d')).status).toBe(200);
    const notConfigured = await t.as(k).post('/v1/payment_methods/migrate', migrated(other.customer.id, { gateway: 'gateway_d' }));
    expect(notConfigured.status).toBe(400);
    expect(notConfigured.body.error).toMatchObject({ code: 'gateway_not_configured', message: 'The gateway gateway_d is not configured in the account', param: 'gateway' });

    const { card: _card, ...noCard } = migrated(s.customer.id);
    const missingCard = await api().post('/v1/payment_methods/migrate', noCard);
    expect(missingCard.status).toBe(400);
    expect(missingCard.body.error.param).toBe('card');
    const pse = await api().post('/v1/payment_methods/migrate', migrated(s.customer.id, { type: 'pse' }));
    expect(pse.status).toBe(400);
    expect(pse.body.error.param).toBe('type');
    const walletAtC = await api().post('/v1/payment_methods/migrate', migrated(s.customer.id, { gateway: 'gateway_c', type: 'wallet_a', card: undefined, wallet: { account_last4: '1234' } }));
    expect(walletAtC.status).toBe(400);
    expect(walletAtC.body.error.param).toBe('type');
    const extra = await api().post('/v1/payment_methods/migrate', migrated(s.customer.id, { number: '4242424242424242' }));
    expect(extra.status).toBe(400);
    expect(extra.body.error).toMatchObject({ code: 'parameter_unknown', param: 'number' });
    expect(await listed(s.customer.id)).toEqual([]);
    expect(await defaultOf(s.customer.id)).toBeNull();
  });
});

describe('card data never leaves the gateway', () => {
  test('no card number, cvc or token in any GET body or event after paying with every test card', async () => {
    const account = await t.account('Secrets');
    const k = account.test_key;
    const as = t.as(k);
    const s = await billingSetup(as);
    const product = (await as.post('/v1/products', { name: 'Secretive' })).body;
    const price = (await as.post('/v1/prices', { product_id: product.id, type: 'one_time', unit_price: '12000' })).body;
    const bodies: unknown[] = [];
    const collections: string[] = [];
    for (const c of ['decline', 'insufficientFunds', 'flaky', 'approve'] as const) {
      const col = (await as.post('/v1/collections', { customer: s.customer.id, items: [{ price: price.id }], collection_method: 'charge' })).body;
      collections.push(col.id);
      const res = await as.post(`/v1/collections/${col.id}/pay`, { payment_information: card(c) });
      bodies.push(res.body);
    }
    const mc = (await as.post('/v1/collections', { customer: s.customer.id, items: [{ price: price.id }], collection_method: 'charge' })).body;
    bodies.push((await as.post(`/v1/collections/${mc.id}/pay`, { payment_information: { gateway: 'gateway_b', type: 'card', card: MASTERCARD } })).body);
    collections.push(mc.id);
    bodies.push((await as.post('/v1/payment_methods/migrate', { customer: s.customer.id, gateway: 'gateway_a', type: 'card', token: 'simtok_approve_secret1', card: { brand: 'visa', last4: '0001', exp_month: 1, exp_year: 2030 } })).body);

    bodies.push((await as.get(`/v1/customers/${s.customer.id}`)).body);
    const methods = (await as.get(`/v1/customers/${s.customer.id}/payment_methods`)).body;
    expect(methods.data).toHaveLength(4); // flaky, approve, mastercard, migrated (declined cards are not saved)
    bodies.push(methods);
    for (const m of methods.data) bodies.push((await as.get(`/v1/payment_methods/${m.id}`)).body);
    for (const id of collections) {
      bodies.push((await as.get(`/v1/collections/${id}`)).body);
      bodies.push((await as.get(`/v1/transactions?collection=${id}`)).body);
    }
    const chargeList = (await as.get('/v1/charges?limit=100')).body;
    expect(chargeList.data.length).toBe(6); // one per attempt (five), two for the flaky card
    bodies.push(chargeList);
    bodies.push((await as.get('/v1/collections?limit=100')).body);

    const events: unknown[] = [];
    let cursor: string | undefined;
    for (let guard = 0; guard < 20; guard++) {
      const page = (await as.get(`/v1/events?limit=100${cursor ? `&starting_after=${cursor}` : ''}`)).body;
      events.push(...page.data);
      if (!page.has_more) break;
      cursor = page.data[page.data.length - 1].id;
    }
    const types = new Set(events.map((e) => (e as Doc).type));
    for (const type of ['payment_method.created', 'transaction.created', 'charge.created', 'charge.failed', 'charge.paid', 'collection.paid', 'collection.payment_failed']) {
      expect(types).toContain(type);
    }
    expectNoSecrets(bodies);
    expectNoSecrets(events);
    expect(JSON.stringify(bodies)).not.toContain('simtok_approve_secret1');
  });
});

describe('one saved method per card', () => {
  test('paying again with the same card charges the saved method instead of saving a second one', async () => {
    const api = t.as(key);
    const s = await billingSetup(api);
    const pay = async () => {
      const col = (await api.post('/v1/collections', { customer: s.customer.id, items: [{ price: s.setupFee.id }], collection_method: 'charge' })).body;
      return (await api.post(`/v1/collections/${col.id}/pay`, { payment_information: card() })).body;
    };
    const first = await pay();
    const second = await pay();
    expect(first.status).toBe('paid');
    expect(second.status).toBe('paid');
    expect(second.payment_method).toBe(first.payment_method);
    const methods = (await api.get(`/v1/customers/${s.customer.id}/payment_methods`)).body.data;
    expect(methods.map((m: { id: string }) => m.id)).toEqual([first.payment_method]);
    // Another card is another method.
    const col = (await api.post('/v1/collections', { customer: s.customer.id, items: [{ price: s.setupFee.id }], collection_method: 'charge' })).body;
    const other = (await api.post(`/v1/collections/${col.id}/pay`, { payment_information: { gateway: 'gateway_a', type: 'card', card: { number: '5555555555554444', exp_month: 1, exp_year: 2031 } } })).body;
    expect(other.payment_method).not.toBe(first.payment_method);
    expect((await api.get(`/v1/customers/${s.customer.id}/payment_methods`)).body.data).toHaveLength(2);
  });
});
