import nodemailer from 'nodemailer';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { billingSetup } from '../support/billing-fixtures.js';
import { advance, clockAndCustomer } from '../support/lifecycle.js';
import { outboxFor } from '../support/outbox.js';
import { SmtpMail } from '#mail/smtp-mail.js';

/** Issue 10 §2: customers are told — collection.sent and collection.reminder e-mails, through the outbox. */
let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await startTestApp();
  key = (await t.account('Gimnasio Andino')).test_key;
});
afterAll(() => t.close());

const api = () => t.as(key);

test('a sent collect collection e-mails the customer the amount, the due date and the page address; each reminder too', async () => {
  const s = await billingSetup(api());
  const { clock, customer } = await clockAndCustomer(api(), '2026-01-31T10:00:00.000Z');
  const email = (await api().get(`/v1/customers/${customer.id}`)).body.email;
  const sub = (await api().post('/v1/subscriptions', { customer: customer.id, items: [{ price: s.monthly.id }], collection_method: 'collect', days_until_due: 5 })).body;
  const col = (await api().get(`/v1/collections/${sub.latest_collection}`)).body;

  const [sent] = await outboxFor(t, key, `to=${encodeURIComponent(email)}&kind=collection.sent`);
  expect(sent).toMatchObject({ object: 'mail_message', to: email, kind: 'collection.sent', refs: { collection: col.id, customer: customer.id } });
  expect(sent.subject).toContain('Gimnasio Andino');
  expect(sent.text).toContain('$ 49.900');
  expect(sent.text).toContain('5 de febrero de 2026');
  expect(sent.text).toContain(col.checkout_url);
  expect(col.checkout_url).toMatch(/\/checkout\/col\/col_/);

  // Due until the end of Feb 5 in Bogotá (2026-02-06T04:59:59.999Z): past due then, the first reminder a day later.
  await advance(api(), clock.id, '2026-02-07T10:00:00.000Z');
  const reminders = await outboxFor(t, key, `to=${encodeURIComponent(email)}&kind=collection.reminder`);
  expect(reminders).toHaveLength(1);
  expect(reminders[0].subject).toMatch(/^Recordatorio/);
  expect(reminders[0].text).toContain(col.checkout_url);
  // Exactly one message per event.
  expect(await outboxFor(t, key, `to=${encodeURIComponent(email)}`, 2)).toHaveLength(2);
});

test('the outbox is test mode only', async () => {
  const { live_key } = await t.account();
  const res = await t.as(live_key).get('/v1/test_helpers/outbox');
  expect(res.status).toBe(403);
  expect(res.body.error.code).toBe('test_mode_only');
});

test('after a restart nothing is mailed twice (the checkpoint survives), and later events are mailed', async () => {
  const app = await startTestApp();
  const { test_key } = await app.account();
  const s = await billingSetup(app.as(test_key));
  const first = (await app.as(test_key).post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], collection_method: 'collect', days_until_due: 5 })).body;
  expect(await outboxFor(app, test_key, 'kind=collection.sent')).toHaveLength(1);
  await app.close();
  const again = await startTestApp({ dataDir: app.dataDir });
  try {
    const second = (await again.as(test_key).post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], collection_method: 'collect', days_until_due: 5 })).body;
    const sent = await outboxFor(again, test_key, 'kind=collection.sent', 2);
    expect(sent.map((m) => m.refs.collection).sort()).toEqual([first.latest_collection, second.latest_collection].sort());
    await new Promise((r) => setTimeout(r, 300));
    expect(await outboxFor(again, test_key, 'kind=collection.sent', 3, 0)).toHaveLength(2);
  } finally {
    await again.close();
  }
});

test('the SMTP adapter hands the message to nodemailer', async () => {
  const transport = nodemailer.createTransport({ jsonTransport: true });
  const smtp = new SmtpMail('smtp://unused', 'Pagos <no-reply@example.com>', transport);
  const sent = await smtp.send({ to: 'ana@example.com', subject: 'Hola', text: 'Valor: $ 49.900', accountId: 'acct_x', mode: 'test', kind: 'collection.sent' });
  expect(sent.id).toBeTruthy();
});
