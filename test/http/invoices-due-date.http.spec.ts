import request from 'supertest';
import { invoicingApp } from '../support/invoicing-app.js';
import { advance, clockAndCustomer } from '../support/lifecycle.js';

/**
 * A due date is a calendar day of the account's zone (Bogotá): an invoice uploaded with
 * `due_date: "2026-12-31"` is due until the end of Dec 31 there, shown as that day by the API, the
 * collection page and the e-mail, and goes past due at midnight in Bogotá (05:00Z), not at 19:00 the
 * evening before (UTC midnight).
 */
const app = invoicingApp({ invoicing: false });
const api = app.api;

/** The outbox's messages matching `query`, once there is one (the mail follower sends shortly after the event). */
async function sentMail(query: string): Promise<any[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const res = await api().get(`/v1/test_helpers/outbox?${query}`);
    expect(res.status).toBe(200);
    if (res.body.data.length > 0 || Date.now() > deadline) return res.body.data;
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('an invoice uploaded due 2026-12-31: due all that day in Bogotá, past due after its midnight, shown as 31 de diciembre everywhere', async () => {
  const { clock, customer } = await clockAndCustomer(api(), '2026-12-01T15:00:00.000Z');
  const email = (await api().get(`/v1/customers/${customer.id}`)).body.email;
  const res = await api().post('/v1/invoices', { customer: customer.id, number: `FE-DUE-${Date.now()}`, issue_date: '2026-12-01', due_date: '2026-12-31', subtotal: '100000', tax_total: '0', total: '100000' });
  expect(res.status).toBe(200);
  const invoice = res.body;
  // The day's last millisecond in Bogotá; the issue date is the first instant of its day there.
  expect(invoice).toMatchObject({ due_date: '2027-01-01T04:59:59.999Z', issue_date: '2026-12-01T05:00:00.000Z', overdue: false });
  const collection = (await api().get(`/v1/collections/${invoice.collection}`)).body;
  expect(collection).toMatchObject({ status: 'pending', due_date: '2027-01-01T04:59:59.999Z' });

  const [mail] = await sentMail(`to=${encodeURIComponent(email)}&kind=collection.sent`);
  expect(mail.refs).toMatchObject({ collection: collection.id });
  expect(mail.text).toContain('Fecha límite: 31 de diciembre de 2026');
  expect(mail.subject).toContain('que vence el 31 de diciembre de 2026');

  const page = await request(app.t.app.getHttpServer()).get(`/checkout/col/${collection.id}`);
  expect(page.status).toBe(200);
  expect(page.text).toContain('31 de diciembre de 2026');
  expect(page.text).not.toContain('30 de diciembre de 2026');
  const en = await request(app.t.app.getHttpServer()).get(`/checkout/col/${collection.id}?locale=en`);
  expect(en.text).toContain('December 31, 2026');

  // 19:00 and 23:00 on Dec 31 in Bogotá (00:00Z and 04:00Z on Jan 1): still due.
  for (const evening of ['2026-12-31T19:00:00.000-05:00', '2026-12-31T23:00:00.000-05:00', '2026-12-31T23:59:59.000-05:00']) {
    await advance(api(), clock.id, evening);
    expect((await api().get(`/v1/collections/${collection.id}`)).body.status).toBe('pending');
    expect((await api().get(`/v1/invoices/${invoice.id}`)).body.overdue).toBe(false);
  }
  // Midnight in Bogotá: past due.
  await advance(api(), clock.id, '2027-01-01T00:00:00.000-05:00');
  expect((await api().get(`/v1/collections/${collection.id}`)).body).toMatchObject({ status: 'past_due', due_date: '2027-01-01T04:59:59.999Z' });
  expect((await api().get(`/v1/invoices/${invoice.id}`)).body.overdue).toBe(true);
  const [pastDue] = (await api().get(`/v1/events?object_id=${collection.id}&type=collection.past_due`)).body.data;
  expect(pastDue.created).toBe('2027-01-01T04:59:59.999Z');
});

test('a timestamp names the Bogotá day that holds it; a date that does not exist is refused', async () => {
  const { customer } = await clockAndCustomer(api(), '2026-12-01T15:00:00.000Z');
  const body = { customer: customer.id, issue_date: '2026-12-01', subtotal: '1000', tax_total: '0', total: '1000' };
  const evening = await api().post('/v1/invoices', { ...body, number: `FE-TS-${Date.now()}`, due_date: '2026-12-31T22:00:00.000-05:00' });
  expect(evening.status).toBe(200);
  expect(evening.body.due_date).toBe('2027-01-01T04:59:59.999Z');
  const bad = await api().post('/v1/invoices', { ...body, number: `FE-BAD-${Date.now()}`, due_date: '2026-02-30' });
  expect(bad.status).toBe(400);
  expect(bad.body.error).toMatchObject({ code: 'parameter_invalid', param: 'due_date' });
  const before = await api().post('/v1/invoices', { ...body, number: `FE-EARLY-${Date.now()}`, due_date: '2026-11-30' });
  expect(before.status).toBe(400);
  expect(before.body.error).toMatchObject({ code: 'parameter_invalid', param: 'due_date' });
  // Due the day it is issued: allowed.
  expect((await api().post('/v1/invoices', { ...body, number: `FE-SAME-${Date.now()}`, due_date: '2026-12-01' })).status).toBe(200);
});
