import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '#event-store/sqlite-event-store.js';
import { SqliteReadStore } from '#read-store/sqlite-read-store.js';
import { SecretSealer } from '#shared/sealing.js';
import { CUSTOMER_KEYS, CustomerKeyring } from './customer-keys.js';
import { ERASED_TEXT, isPiiValue } from './pii-cipher.js';
import { CUSTOMER_ERASED, PersonalDataEventStore, storedEventStore } from './personal-data-event-store.js';

const meta = { occurred_at: '2026-11-23T10:00:00.000Z', account_id: 'acct_1', mode: 'test' as const };
const created = (id: string) => ({
  id: randomUUID(),
  type: 'customer.created',
  data: {
    id,
    account_id: 'acct_1',
    is_test: true,
    created_at: meta.occurred_at,
    email: 'ana.maria@example.co',
    name: 'Ana María Pérez',
    phone: '+573001234567',
    document_type: 'CC',
    document_number: '1020304050',
    billing_address: { address_1: 'Calle 93 # 11-26', address_2: null, city: 'Bogotá', state: 'DC', postcode: '110221', country: 'CO' },
    default_payment_method: null,
    meta_data: { crm: 'Ana-CRM-77' },
    test_clock: null,
  },
  metadata: meta,
});

const open: Array<{ close(): Promise<void> }> = [];
const track = <T extends { close(): Promise<void> }>(store: T): T => (open.push(store), store);
afterEach(async () => {
  for (const s of open.splice(0)) await s.close().catch(() => undefined);
});

function setup(dir = mkdtempSync(join(tmpdir(), 'pii-'))) {
  const inner = track(new SqliteEventStore(join(dir, 'events.sqlite'), { writer: 'inline' }));
  const reads = track(new SqliteReadStore(join(dir, 'reads.sqlite'), { writer: 'inline' }));
  const sealer = new SecretSealer(randomBytes(32));
  const keys = new CustomerKeyring(reads).attach(sealer);
  const events = new PersonalDataEventStore(inner, keys);
  return { dir, inner, reads, keys, events, sealer };
}

describe('personal data at the event store boundary', () => {
  test('stored encrypted under the customer key, read back as plaintext; other events untouched', async () => {
    const { inner, events, reads } = setup();
    const e = created('cus_1');
    await events.append('customer-cus_1', [e], 'no_stream');
    await events.append('product-prod_1', [{ id: randomUUID(), type: 'product.created', data: { id: 'prod_1', name: 'Plan' }, metadata: meta }], 'no_stream');

    const stored = await inner.readStream('customer-cus_1');
    for (const field of ['email', 'name', 'phone', 'document_number', 'billing_address', 'meta_data']) {
      expect(isPiiValue(stored[0].data[field])).toBe(true);
      expect((stored[0].data[field] as { c: string }).c).toBe('cus_1');
    }
    expect(JSON.stringify(stored[0].data)).not.toMatch(/Ana|example\.co|300123|1020304050|Calle 93/);
    // What is not personal stays readable (ids, the document's kind, the account).
    expect(stored[0].data).toMatchObject({ id: 'cus_1', document_type: 'CC', account_id: 'acct_1', default_payment_method: null });

    expect((await events.readStream('customer-cus_1'))[0].data).toEqual(e.data);
    const all = await events.readAll({ maxCount: 10 });
    expect(all.map((x) => x.data)).toEqual([e.data, { id: 'prod_1', name: 'Plan' }]);
    expect((await inner.readStream('product-prod_1'))[0].data).toEqual({ id: 'prod_1', name: 'Plan' });
    const keyDoc = await reads.get<Record<string, unknown>>(CUSTOMER_KEYS, 'cus_1');
    expect(keyDoc).toMatchObject({ id: 'cus_1', erased_at: null, sealed: { v: 1 } });
  });

  test('an update holds only its changes encrypted; a null (cleared) value stays null', async () => {
    const { inner, events } = setup();
    await events.append('customer-cus_2', [created('cus_2')], 'no_stream');
    const update = { id: randomUUID(), type: 'customer.updated', data: { id: 'cus_2', changes: { name: 'Ana M.', phone: null } }, metadata: meta };
    await events.append('customer-cus_2', [update], 0);
    const stored = await inner.readStream('customer-cus_2', 1);
    expect(isPiiValue((stored[0].data.changes as Record<string, unknown>).name)).toBe(true);
    expect((stored[0].data.changes as Record<string, unknown>).phone).toBeNull();
    expect((await events.readStream('customer-cus_2', 1))[0].data).toEqual(update.data);
  });

  test('once the key is destroyed: the documented placeholders, the ciphertext kept, further personal data refused', async () => {
    const { inner, events, keys } = setup();
    await events.append('customer-cus_3', [created('cus_3')], 'no_stream');
    const before = JSON.stringify(await inner.readStream('customer-cus_3'));
    expect(await keys.erase('cus_3')).toBe(true);
    expect(await keys.erase('cus_3')).toBe(false);
    await events.append('customer-cus_3', [{ id: randomUUID(), type: CUSTOMER_ERASED, data: { id: 'cus_3', erased_at: meta.occurred_at }, metadata: meta }], 0);

    const [read] = await events.readStream('customer-cus_3');
    expect(read.data).toMatchObject({
      id: 'cus_3',
      email: ERASED_TEXT,
      name: ERASED_TEXT,
      phone: ERASED_TEXT,
      document_number: ERASED_TEXT,
      billing_address: null,
      meta_data: {},
      document_type: 'CC',
    });
    // The stored bytes are as they were (the audit chain hashes them).
    expect(JSON.stringify((await inner.readStream('customer-cus_3')).slice(0, 1))).toBe(JSON.stringify(JSON.parse(before)));
    await expect(events.append('customer-cus_3', [{ id: randomUUID(), type: 'customer.updated', data: { id: 'cus_3', changes: { name: 'Again' } }, metadata: meta }], 1)).rejects.toMatchObject({
      code: 'customer_erased',
      status: 409,
    });
  });

  test('another reader (the pipeline thread) with the key cached drops it when it reads the erasure', async () => {
    const a = setup();
    await a.events.append('customer-cus_4', [created('cus_4')], 'no_stream');
    // A second keyring over the same files, as the pipeline's thread has.
    const otherKeys = new CustomerKeyring(track(new SqliteReadStore(join(a.dir, 'reads.sqlite'), { writer: 'inline' }))).attach(a.sealer);
    const other = new PersonalDataEventStore(track(new SqliteEventStore(join(a.dir, 'events.sqlite'), { writer: 'inline' })), otherKeys);
    expect((await other.readAll({ maxCount: 10 }))[0].data.name).toBe('Ana María Pérez');
    await a.keys.erase('cus_4');
    await a.events.append('customer-cus_4', [{ id: randomUUID(), type: CUSTOMER_ERASED, data: { id: 'cus_4', erased_at: meta.occurred_at }, metadata: meta }], 0);
    const again = await other.readAll({ maxCount: 10 });
    expect(again.map((e) => e.type)).toEqual(['customer.created', CUSTOMER_ERASED]);
    // A rebuild from the first event now reads the placeholder.
    expect((await other.readAll({ maxCount: 10 }))[0].data.name).toBe(ERASED_TEXT);
  });

  test('the files never hold the plaintext', async () => {
    const { dir, events, inner, reads } = setup();
    await events.append('customer-cus_5', [created('cus_5')], 'no_stream');
    await inner.close();
    await reads.close();
    for (const f of readdirSync(dir)) {
      const bytes = readFileSync(join(dir, f)).toString('latin1');
      for (const secret of ['ana.maria@example.co', 'Ana Mar', '3001234567', '1020304050', 'Calle 93', 'Ana-CRM-77']) expect(bytes.includes(secret)).toBe(false);
    }
  });

  test("a path through an array: each custom field's value under the session's key, its definition in clear", async () => {
    const { inner, events, keys } = setup();
    const fields = [
      { key: 'dedicatoria', type: 'text', label: 'Dedicatoria', options: [], required: true, value: 'Para Ana' },
      { key: 'nota', type: 'text', label: 'Nota', options: [], required: false, value: null },
    ];
    const update = { id: randomUUID(), type: 'checkout_session.updated', data: { id: 'cs_1', changes: { custom_fields: fields }, updated_at: meta.occurred_at, reason: 'details' }, metadata: meta };
    await events.append('checkoutsession-cs_1', [update], 'no_stream');
    const stored = (await inner.readStream('checkoutsession-cs_1'))[0].data.changes as { custom_fields: Array<Record<string, unknown>> };
    expect(stored.custom_fields[0]).toMatchObject({ key: 'dedicatoria', label: 'Dedicatoria', value: { c: 'cs_1' } });
    expect(stored.custom_fields[1].value).toBeNull();
    expect((await events.readStream('checkoutsession-cs_1'))[0].data).toEqual(update.data);
    await keys.erase('cs_1');
    const erased = (await events.readStream('checkoutsession-cs_1'))[0].data.changes as { custom_fields: Array<Record<string, unknown>> };
    expect(erased.custom_fields.map((c) => c.value)).toEqual([ERASED_TEXT, null]);
  });

  test('an event written in clear before encryption existed reads as plaintext, then as placeholders once its customer is erased', async () => {
    const { inner, events, keys } = setup();
    const legacy = created('cus_6');
    await inner.append('customer-cus_6', [legacy], 'no_stream');
    expect((await events.readStream('customer-cus_6'))[0].data).toEqual(legacy.data);
    await keys.erase('cus_6');
    expect((await events.readStream('customer-cus_6'))[0].data).toMatchObject({ email: ERASED_TEXT, name: ERASED_TEXT, phone: ERASED_TEXT, document_number: ERASED_TEXT, billing_address: null, meta_data: {}, document_type: 'CC' });
  });

  test('storedEventStore names the adapter under the decorator', () => {
    const { inner, events } = setup();
    expect(storedEventStore(events)).toBe(inner);
    expect(storedEventStore(inner)).toBe(inner);
  });
});
