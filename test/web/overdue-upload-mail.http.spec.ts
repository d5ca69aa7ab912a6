import { startTestApp, type TestApp } from '../support/test-app.js';
import { outboxFor } from '../support/outbox.js';

/**
 * An invoice uploaded already overdue: its collection is past due at once and the customer gets one
 * e-mail, an overdue notice naming the day it fell due; no reminder is dated before the collection
 * existed (dunning counts from its upload), so nothing else happens until the first reminder's day.
 */
let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await startTestApp({ now: new Date('2026-11-23T15:00:00.000Z') });
  key = (await t.account('Ferretería El Tornillo')).test_key;
});
afterAll(() => t.close());

const api = () => t.as(key);
const DAY = 86_400_000;
/** What the deadline worker does on each poll, several polls in a row. */
const polls = async (n = 5) => {
  for (let i = 0; i < n; i++) await t.runDue();
};

test('uploaded 60 days overdue: created, past_due and sent (one overdue notice e-mail); no backdated reminder, no uncollectible; dunning counted from the upload', async () => {
  const email = `overdue.${Date.now()}@example.com`;
  const customer = (await api().post('/v1/customers', { email, name: 'Ana Gómez' })).body;
  // Due 24 September 2026 (noon in Bogotá), 60 days before now.
  const due = '2026-09-24T17:00:00.000Z';
  const uploaded = await api().post('/v1/invoices', { customer: customer.id, number: 'FT-9001', issue_date: '2026-08-25T17:00:00.000Z', due_date: due, subtotal: '250000', tax_total: '47500', total: '297500' });
  expect(uploaded.status).toBe(200);
  const collectionId = uploaded.body.collection as string;
  await polls();

  const col = (await api().get(`/v1/collections/${collectionId}`)).body;
  expect(col).toMatchObject({ status: 'past_due', dunning_step: 0, next_collection_attempt_date: new Date(Date.parse('2026-11-23T15:00:00.000Z') + DAY).toISOString() });
  const types = ((await api().get(`/v1/events?object_id=${collectionId}&limit=100`)).body.data as { type: string }[]).map((e) => e.type);
  expect(types.filter((x) => x !== 'collection.invoice_attached')).toEqual(['collection.created', 'collection.past_due', 'collection.sent']);

  const [notice] = await outboxFor(t, key, `to=${encodeURIComponent(email)}`);
  expect(notice).toMatchObject({ kind: 'collection.sent', refs: { collection: collectionId, customer: customer.id } });
  expect(notice.subject).toBe('Ferretería El Tornillo: tu pago de $ 297.500 está vencido desde el 24 de septiembre de 2026');
  expect(notice.text).toContain('te envió un cobro vencido');
  expect(notice.text).toContain('Venció el: 24 de septiembre de 2026');
  expect(notice.text).not.toContain('Fecha límite');
  expect(notice.text).toContain(col.checkout_url);
  await new Promise((r) => setTimeout(r, 500));
  expect(await outboxFor(t, key, `to=${encodeURIComponent(email)}`, 2, 0)).toHaveLength(1);

  // The first reminder comes a day after the upload (the policy's retry_days[0] = 1), the next two days later.
  t.clock.advanceMs(DAY);
  await polls();
  const reminders = await outboxFor(t, key, `to=${encodeURIComponent(email)}&kind=collection.reminder`);
  expect(reminders).toHaveLength(1);
  expect((await api().get(`/v1/collections/${collectionId}`)).body).toMatchObject({
    status: 'past_due',
    dunning_step: 1,
    next_collection_attempt_date: new Date(Date.parse('2026-11-23T15:00:00.000Z') + 3 * DAY).toISOString(),
  });
});
