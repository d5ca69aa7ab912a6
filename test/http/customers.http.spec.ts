import type { EventStore } from '#event-store/event-store.port.js';
import { EVENT_STORE } from '#platform/tokens.js';
import { newEventUuid } from '#shared/ids.js';
import { createHash, createHmac } from 'node:crypto';
import { CLAIM_GRACE_MS, legacyCustomerEmailStream } from '#customers/domain/customer-email.decider.js';
import { CLAIM_KEY_ID, CustomerEmailClaims } from '#customers/application/customer-email-claims.js';
import { SecretVault } from '#platform/sealing.module.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let key: string;
let liveKey: string;
let accountId: string;

beforeAll(async () => {
  t = await startTestApp();
  const account = await t.account();
  key = account.test_key;
  liveKey = account.live_key;
  accountId = account.id;
});
afterAll(() => t.close());

const address = {
  address_1: 'Calle 100 # 8A-55',
  address_2: 'Oficina 501',
  city: 'Bogotá',
  state: 'Cundinamarca',
  postcode: '110111',
  country: 'CO',
};

let n = 0;
const uniqueEmail = (tag = 'c') => `${tag}.${++n}.${Date.now()}@example.com`;

describe('create and get', () => {
  test('create returns the customer with every field, and GET returns the same', async () => {
    const res = await t.as(key).post('/v1/customers', {
      email: '  Ana.Gomez@Example.com ',
      name: 'Ana Gómez',
      phone: '+57 300 123 4567',
      document_type: 'CC',
      document_number: '1020304050',
      billing_address: { ...address, country: 'co' },
      meta_data: { crm_id: '42' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^cus_[0-9A-Za-z]{24}$/),
      object: 'customer',
      email: 'Ana.Gomez@Example.com',
      name: 'Ana Gómez',
      phone: '+57 300 123 4567',
      document_type: 'CC',
      document_number: '1020304050',
      billing_address: address,
      default_payment_method: null,
      meta_data: { crm_id: '42' },
      test_clock: null,
      created_date: '2026-11-23 10:00:00',
      is_test: true,
    });
    const got = await t.as(key).get(`/v1/customers/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  test('optional fields are null when not given', async () => {
    const email = uniqueEmail('min');
    const res = await t.as(key).post('/v1/customers', { email, billing_address: { address_1: 'Cra 7 # 1-1', city: 'Cali', state: 'Valle', country: 'CO' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      email,
      name: null,
      phone: null,
      document_type: null,
      document_number: null,
      billing_address: { address_1: 'Cra 7 # 1-1', address_2: null, city: 'Cali', state: 'Valle', postcode: null, country: 'CO' },
      default_payment_method: null,
      meta_data: {},
      test_clock: null,
    });
  });

  test('validation errors are 400 naming the field, nested ones in bracket style; unknown fields are refused', async () => {
    const post = (body: object) => t.as(key).post('/v1/customers', body);
    const missing = await post({ name: 'x' });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ type: 'invalid_request_error', code: 'parameter_missing', param: 'email' });
    expect((await post({ email: 'not-an-email' })).body.error).toMatchObject({ code: 'parameter_invalid', param: 'email' });
    const unknown = await post({ email: uniqueEmail(), colour: 'red' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'parameter_unknown', param: 'colour' });
    const nestedUnknown = await post({ email: uniqueEmail(), billing_address: { ...address, floor: '5' } });
    expect(nestedUnknown.body.error).toMatchObject({ code: 'parameter_unknown', param: 'billing_address[floor]' });
    const { city: _city, ...noCity } = address;
    const nestedMissing = await post({ email: uniqueEmail(), billing_address: noCity });
    expect(nestedMissing.status).toBe(400);
    expect(nestedMissing.body.error).toMatchObject({ code: 'parameter_missing', param: 'billing_address[city]' });
    expect((await post({ email: uniqueEmail(), billing_address: { ...address, country: 'Colombia' } })).body.error.param).toBe('billing_address[country]');
    expect((await post({ email: uniqueEmail(), billing_address: { ...address, postcode: 110111 } })).body.error.param).toBe('billing_address[postcode]');
    expect((await post({ email: uniqueEmail(), billing_address: 'Calle 1' })).body.error.param).toBe('billing_address');
    expect((await post({ email: uniqueEmail(), document_type: 'passport' })).body.error.param).toBe('document_type');
    expect((await post({ email: uniqueEmail(), name: '   ' })).body.error.param).toBe('name');
    expect((await post({ email: uniqueEmail(), meta_data: { k: 'v'.repeat(256) } })).body.error.param).toBe('meta_data[k]');
    expect((await post({ email: uniqueEmail(), meta_data: null })).body.error.param).toBe('meta_data');
  });

  test('a 5-digit city that is no DIVIPOLA code is 400 naming billing_address[city], on create and on update; nothing is written', async () => {
    const email = uniqueEmail('divipola');
    const refused = await t.as(key).post('/v1/customers', { email, billing_address: { ...address, state: '05', city: '05999' } });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ type: 'invalid_request_error', code: 'parameter_invalid', param: 'billing_address[city]' });
    expect(refused.body.error.message).toContain('05999');
    const created = await t.as(key).post('/v1/customers', { email, billing_address: { ...address, state: '05', city: '05001' } });
    expect(created.status).toBe(200);
    const update = await t.as(key).post(`/v1/customers/${created.body.id}/update`, { billing_address: { ...address, state: '05', city: '05999' } });
    expect(update.status).toBe(400);
    expect(update.body.error.param).toBe('billing_address[city]');
    expect((await t.as(key).get(`/v1/customers/${created.body.id}`)).body.billing_address.city).toBe('05001');
  });

  test('a refused create leaves the email free', async () => {
    const email = uniqueEmail('refused');
    expect((await t.as(key).post('/v1/customers', { email, billing_address: { ...address, country: 'Colombia' } })).status).toBe(400);
    // Refused by the decider (whitespace only), not by request validation: checked before the email is claimed.
    expect((await t.as(key).post('/v1/customers', { email, name: '   ' })).status).toBe(400);
    expect((await t.as(key).post('/v1/customers', { email })).status).toBe(200);
  });
});

describe('one customer per email, account and mode', () => {
  test('a second customer with the same email (any case, surrounding spaces) is 409 naming the existing one', async () => {
    const email = uniqueEmail('dup');
    const first = await t.as(key).post('/v1/customers', { email });
    for (const again of [email, email.toUpperCase(), `  ${email} `]) {
      const res = await t.as(key).post('/v1/customers', { email: again, name: 'Other' });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({
        error: {
          type: 'invalid_request_error',
          code: 'resource_already_exists',
          message: `A customer with email ${again.trim()} already exists: ${first.body.id}`,
          param: 'email',
        },
      });
    }
  });

  test('the same email is allowed in live mode and in another account', async () => {
    const email = uniqueEmail('modes');
    const test = await t.as(key).post('/v1/customers', { email });
    const live = await t.as(liveKey).post('/v1/customers', { email });
    expect(live.status).toBe(200);
    expect(live.body.is_test).toBe(false);
    const other = await t.account('Other merchant');
    const elsewhere = await t.as(other.test_key).post('/v1/customers', { email });
    expect(elsewhere.status).toBe(200);
    expect(new Set([test.body.id, live.body.id, elsewhere.body.id]).size).toBe(3);
  });

  test('20 concurrent creates with one email: exactly one succeeds, the others are 409 naming it', async () => {
    const email = uniqueEmail('race');
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => t.as(key).post('/v1/customers', { email, name: `racer ${i}` })));
    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(1);
    const conflicts = results.filter((r) => r.status === 409);
    expect(conflicts).toHaveLength(19);
    for (const r of conflicts) expect(r.body.error.message).toBe(`A customer with email ${email} already exists: ${ok[0].body.id}`);
    const list = await t.as(key).get(`/v1/customers?email=${encodeURIComponent(email)}`);
    expect(list.body.data.map((c: { id: string }) => c.id)).toEqual([ok[0].body.id]);
  });

  test('concurrent creates through two API processes on one data directory: exactly one succeeds', async () => {
    const second = await startTestApp({ dataDir: t.dataDir });
    try {
      const email = uniqueEmail('procs');
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? t : second).as(key).post('/v1/customers', { email })),
      );
      expect(results.filter((r) => r.status === 200)).toHaveLength(1);
      expect(results.filter((r) => r.status === 409)).toHaveLength(9);
    } finally {
      await second.close();
    }
  });

  test.each(['current', 'legacy'] as const)('a claim orphaned by a crash (under the %s name) blocks the email only for the grace period', async (name) => {
    const email = uniqueEmail(`orphan-${name}`);
    const events = t.app.get<EventStore>(EVENT_STORE);
    await events.append(
      (await t.app.get(CustomerEmailClaims).streams({ accountId, mode: 'test' }, email))[name],
      [
        {
          id: newEventUuid(),
          type: 'customer_email.claimed',
          data: { customer_id: 'cus_crashedBeforeWriting00', claimed_at: t.clock.now().toISOString() },
          metadata: { account_id: accountId, mode: 'test', occurred_at: t.clock.now().toISOString() },
        },
      ],
      'no_stream',
    );
    const blocked = await t.as(key).post('/v1/customers', { email });
    expect(blocked.status).toBe(409);
    t.clock.advanceMs(CLAIM_GRACE_MS);
    const res = await t.as(key).post('/v1/customers', { email });
    expect(res.status).toBe(200);
    expect((await t.as(key).post('/v1/customers', { email })).body.error.message).toContain(res.body.id);
  });

  test('the claim stream is named by an HMAC under the sealed claim key: its name holds neither the e-mail nor its plain SHA-256', async () => {
    const email = uniqueEmail('hmac');
    const events = t.app.get<EventStore>(EVENT_STORE);
    const from = await events.headPosition();
    const created = await t.as(key).post('/v1/customers', { email });
    expect(created.status).toBe(200);
    const claims = (await events.readAll({ after: from, maxCount: 1000 })).filter((e) => e.type === 'customer_email.claimed' && (e.data as { customer_id: string }).customer_id === created.body.id);
    expect(claims).toHaveLength(1);
    const stream = claims[0].streamId;
    const subject = `${accountId}|test|${email.toLowerCase()}`;
    const sha = createHash('sha256').update(subject).digest('hex');
    expect(stream).not.toContain(email);
    expect(stream).not.toContain(sha);
    expect(stream).not.toBe(legacyCustomerEmailStream({ accountId, mode: 'test' }, email));
    const claimKey = Buffer.from((await t.app.get(SecretVault).open(CLAIM_KEY_ID))!, 'base64');
    expect(claimKey).toHaveLength(32);
    expect(stream).toBe(`customeremail-${createHmac('sha256', claimKey).update(subject).digest('hex')}`);
    expect((await t.as(key).post('/v1/customers', { email: email.toUpperCase() })).status).toBe(409);
  });

  test('a claim written under the former SHA-256 name still holds its e-mail: a duplicate is 409 naming its customer until it moves away', async () => {
    const email = uniqueEmail('legacy');
    const owner = { accountId, mode: 'test' as const };
    const events = t.app.get<EventStore>(EVENT_STORE);
    const claims = t.app.get(CustomerEmailClaims);
    const holder = await t.as(key).post('/v1/customers', { email });
    expect(holder.status).toBe(200);
    // As data written before the key: the claim only under the former name.
    const { current, legacy } = await claims.streams(owner, email);
    const meta = { account_id: accountId, mode: 'test' as const, occurred_at: t.clock.now().toISOString() };
    await events.append(current, [{ id: newEventUuid(), type: 'customer_email.released', data: { customer_id: holder.body.id }, metadata: meta }], 'any');
    const written = await events.append(legacy, [{ id: newEventUuid(), type: 'customer_email.claimed', data: { customer_id: holder.body.id, claimed_at: t.clock.now().toISOString() }, metadata: meta }], 'no_stream');
    // Written beside the service (as another process would): its remembered states learn of it through the pipeline.
    await t.app.get(ProjectionEngine).waitFor(written.position);
    expect(await claims.holder(owner, email)).toBe(holder.body.id);

    const duplicate = await t.as(key).post('/v1/customers', { email: ` ${email.toUpperCase()} ` });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.error.message).toContain(holder.body.id);
    const other = await t.as(key).post('/v1/customers', { email: uniqueEmail('legacy-other') });
    expect((await t.as(key).post(`/v1/customers/${other.body.id}/update`, { email })).status).toBe(409);

    // The holder moves to another e-mail: the former claim is released too, and the e-mail is free.
    expect((await t.as(key).post(`/v1/customers/${holder.body.id}/update`, { email: uniqueEmail('legacy-moved') })).status).toBe(200);
    expect(await claims.holder(owner, email)).toBeNull();
    expect((await t.as(key).post('/v1/customers', { email })).status).toBe(200);
  });

  test('a retried create with the same Idempotency-Key returns the first customer, not a 409', async () => {
    const email = uniqueEmail('idem');
    const headers = { 'Idempotency-Key': `cus-${email}` };
    const first = await t.as(key).post('/v1/customers', { email }, headers);
    const again = await t.as(key).post('/v1/customers', { email }, headers);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
  });
});

describe('list', () => {
  test('newest first with cursor pagination, and the email filter (exact, case-insensitive)', async () => {
    const other = await t.account('Lister');
    const k = other.test_key;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      t.clock.advanceMs(1000);
      ids.push((await t.as(k).post('/v1/customers', { email: `List${i}@Example.com` })).body.id);
    }
    const first = await t.as(k).get('/v1/customers?limit=2');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ object: 'list', url: '/v1/customers', has_more: true });
    expect(first.body.data.map((c: { id: string }) => c.id)).toEqual([ids[4], ids[3]]);
    const second = await t.as(k).get(`/v1/customers?limit=3&starting_after=${ids[3]}`);
    expect(second.body.data.map((c: { id: string }) => c.id)).toEqual([ids[2], ids[1], ids[0]]);
    expect(second.body.has_more).toBe(false);
    const byEmail = await t.as(k).get('/v1/customers?email=list2@EXAMPLE.com');
    expect(byEmail.body.data.map((c: { id: string }) => c.id)).toEqual([ids[2]]);
    expect(byEmail.body.data[0].email).toBe('List2@Example.com');
    expect((await t.as(k).get('/v1/customers?email=list2@example')).body.data).toEqual([]);
    expect((await t.as(other.live_key).get('/v1/customers')).body.data).toEqual([]);
    expect((await t.as(k).get('/v1/customers?limit=0')).status).toBe(400);
    expect((await t.as(k).get('/v1/customers?colour=red')).body.error).toMatchObject({ code: 'parameter_unknown', param: 'colour' });
  });
});

describe('update', () => {
  test('partial update: meta_data merges, billing_address is replaced whole, null clears a field', async () => {
    const { body } = await t.as(key).post('/v1/customers', {
      email: uniqueEmail('upd'),
      name: 'Ana',
      phone: '+57 1',
      billing_address: address,
      meta_data: { a: '1', b: '2' },
    });
    const upd = await t.as(key).post(`/v1/customers/${body.id}/update`, {
      phone: null,
      billing_address: { address_1: 'Cl 10 # 43-12', city: 'Medellín', state: 'Antioquia', country: 'co' },
      meta_data: { a: '', c: '3' },
    });
    expect(upd.status).toBe(200);
    expect(upd.body).toEqual({
      ...body,
      phone: null,
      billing_address: { address_1: 'Cl 10 # 43-12', address_2: null, city: 'Medellín', state: 'Antioquia', postcode: null, country: 'CO' },
      meta_data: { b: '2', c: '3' },
    });
    expect((await t.as(key).get(`/v1/customers/${body.id}`)).body).toEqual(upd.body);
    const none = await t.as(key).post(`/v1/customers/${body.id}/update`, {});
    expect(none.status).toBe(200);
    expect(none.body).toEqual(upd.body);
    const bad = await t.as(key).post(`/v1/customers/${body.id}/update`, { email: null });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('email');
    expect((await t.as(key).post(`/v1/customers/${body.id}/update`, { billing_address: { city: 'Cali' } })).body.error.param).toBe('billing_address[address_1]');
  });

  test('changing the email frees the old one; an email held by another customer is 409 and changes nothing', async () => {
    const oldEmail = uniqueEmail('old');
    const newEmail = uniqueEmail('new');
    const a = (await t.as(key).post('/v1/customers', { email: oldEmail })).body;
    const moved = await t.as(key).post(`/v1/customers/${a.id}/update`, { email: newEmail });
    expect(moved.status).toBe(200);
    expect(moved.body.email).toBe(newEmail);
    const b = await t.as(key).post('/v1/customers', { email: oldEmail });
    expect(b.status).toBe(200);
    const taken = await t.as(key).post(`/v1/customers/${b.body.id}/update`, { email: newEmail.toUpperCase(), name: 'B' });
    expect(taken.status).toBe(409);
    expect(taken.body.error).toMatchObject({
      code: 'resource_already_exists',
      param: 'email',
      message: `A customer with email ${newEmail.toUpperCase()} already exists: ${a.id}`,
    });
    expect((await t.as(key).get(`/v1/customers/${b.body.id}`)).body).toEqual(b.body);
    expect((await t.as(key).post('/v1/customers', { email: newEmail })).status).toBe(409);
  });

  test('changing only the letter case of the email keeps the claim', async () => {
    const email = uniqueEmail('case');
    const c = (await t.as(key).post('/v1/customers', { email })).body;
    const upd = await t.as(key).post(`/v1/customers/${c.id}/update`, { email: email.toUpperCase() });
    expect(upd.status).toBe(200);
    expect(upd.body.email).toBe(email.toUpperCase());
    expect((await t.as(key).post('/v1/customers', { email })).status).toBe(409);
  });
});

describe('tenancy', () => {
  test("another account's or the other mode's customer is 404 for get, update and payment_methods", async () => {
    const c = (await t.as(key).post('/v1/customers', { email: uniqueEmail('tenant') })).body;
    const other = await t.account('Stranger');
    for (const k of [liveKey, other.test_key, other.live_key]) {
      const get = await t.as(k).get(`/v1/customers/${c.id}`);
      expect(get.status).toBe(404);
      expect(get.body.error).toMatchObject({ type: 'invalid_request_error', code: 'resource_missing', message: `No such customer: '${c.id}'` });
      expect((await t.as(k).post(`/v1/customers/${c.id}/update`, { name: 'x' })).status).toBe(404);
      expect((await t.as(k).get(`/v1/customers/${c.id}/payment_methods`)).status).toBe(404);
    }
    expect((await t.as(key).get(`/v1/customers/${c.id}`)).body.name).toBeNull();
    expect((await t.as(key).get('/v1/customers/cus_doesNotExist')).status).toBe(404);
  });
});

describe('payment methods', () => {
  test('an existing customer has a (still empty) list; an unknown one is 404', async () => {
    const c = (await t.as(key).post('/v1/customers', { email: uniqueEmail('pm') })).body;
    const res = await t.as(key).get(`/v1/customers/${c.id}/payment_methods`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ object: 'list', url: `/v1/customers/${c.id}/payment_methods`, has_more: false, data: [] });
    const missing = await t.as(key).get('/v1/customers/cus_nope/payment_methods');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('resource_missing');
  });
});

describe('event feed', () => {
  test('customer.created and customer.updated carry data.object; email claims never appear', async () => {
    const acct = await t.account('Customer feed');
    const k = acct.test_key;
    const c = (await t.as(k).post('/v1/customers', { email: 'feed@example.com', name: 'v1' })).body;
    await t.as(k).post(`/v1/customers/${c.id}/update`, { name: 'v2', email: 'feed2@example.com' });
    expect((await t.as(k).post('/v1/customers', { email: 'feed2@example.com' })).status).toBe(409);
    const feed = await t.as(k).get('/v1/events');
    expect(feed.status).toBe(200);
    expect(feed.body.data.map((e: { type: string }) => e.type)).toEqual(['customer.created', 'customer.updated']);
    const [created, updated] = feed.body.data;
    expect(created).toMatchObject({ object: 'event', is_test: true, data: { object: { ...c } } });
    expect(updated.data.object).toMatchObject({ id: c.id, object: 'customer', name: 'v2', email: 'feed2@example.com' });
    expect((await t.as(k).get('/v1/events?type=customer_email.*')).body.data).toEqual([]);
    expect((await t.as(k).get('/v1/events?type=customer.*')).body.data).toHaveLength(2);
    expect((await t.as(k).get(`/v1/events?object_id=${c.id}`)).body.data).toHaveLength(2);
  });
});

describe('service', () => {
  test('OpenAPI lists the customer paths', async () => {
    const doc = await t.http().get('/openapi.json');
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining(['/v1/customers', '/v1/customers/{id}', '/v1/customers/{id}/update', '/v1/customers/{id}/payment_methods']),
    );
  });
});
