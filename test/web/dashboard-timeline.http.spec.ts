import { signInMember } from '../support/dashboard-member.js';
import { billingSetup, card } from '../support/billing-fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let keys: { id: string; test_key: string; live_key: string };
beforeAll(async () => {
  t = await startTestApp();
  keys = await t.account('Timeline merchant');
});
afterAll(() => t.close());

/** The timeline's entries of a detail page: type, sentence, who beside it, the member named as actor. */
const timeline = (html: string) =>
  [...html.matchAll(/<li data-event="(evt_[0-9a-f]+)" data-type="([a-z_.]+)"(?: data-actor="(mem_[A-Za-z0-9]+)")?><strong class="sentence">([^<]*)<\/strong>(.*?)<\/li>/g)].map((m) => ({
    id: m[1],
    type: m[2],
    actor: m[3] ?? null,
    sentence: m[4].replace(/&#39;/g, "'"),
    rest: m[5],
  }));

test('a subscription paid by card and canceled by a support member: its timeline in sentences (es-CO and English), its fields labeled in words, the JSON one click away', async () => {
  const api = t.as(keys.test_key);
  const { monthly, customer, product } = await billingSetup(api);
  const sub = (await api.post('/v1/subscriptions', { customer: customer.id, items: [{ price: monthly.id, quantity: 1 }], collection_method: 'charge', payment_information: card() })).body;
  expect((await api.get(`/v1/subscriptions/${sub.id}`)).body.status).toBe('active');
  const email = `ana.soporte.${Date.now()}@example.com`;
  const { visitor: v, memberId } = await signInMember(t, keys.id, 'support', { email });
  await v.get(`/dashboard/subscriptions/${sub.id}?locale=es`);
  expect((await v.post(`/dashboard/subscriptions/${sub.id}/cancel`, { cancel_at: 'now' })).status).toBe(303);

  const page = await v.get(`/dashboard/subscriptions/${sub.id}`);
  const es = timeline(page.text);
  const of = (type: string) => es.find((e) => e.type === type);
  expect(of('subscription.created')?.sentence).toBe(`Suscripción creada: ${product.name} · $ 49.900 al mes`);
  expect(of('collection.created')?.sentence).toBe('Cobro de $ 49.900 creado');
  expect(of('charge.paid')?.sentence).toBe('Cobro de $ 49.900 aprobado con Visa •••• 4242');
  expect(of('collection.paid')?.sentence).toBe('Cobro de $ 49.900 pagado');
  expect(of('subscription.canceled')).toMatchObject({ actor: memberId, sentence: `${email} (Soporte) canceló de inmediato` });
  // Made through the API with a key: nobody is named.
  expect(of('subscription.created')?.actor).toBeNull();
  expect(of('subscription.created')?.rest).not.toContain('class="actor"');
  // The event's type stays reachable, and every entry of the subscription's own keeps its "state after" link.
  for (const e of es) expect(e.rest).toContain(`<code class="muted" title="Tipo de evento (API)">${e.type}</code>`);
  expect(of('subscription.canceled')?.rest).toContain(`?as_of=${of('subscription.canceled')!.id}`);
  // No raw event type is shown as the sentence.
  expect(es.every((e) => !/^[a-z_]+\.[a-z_]+$/.test(e.sentence))).toBe(true);
  // Fields in words, the API's name beside, the JSON one click away.
  expect(page.text).toContain('<dt>Periodo de facturación <code class="muted">billing_period</code></dt><dd data-field="billing_period" data-value="month">Mes</dd>');
  expect(page.text).toContain('<dt>De prueba <code class="muted">is_test</code></dt><dd data-field="is_test" data-value="true">Sí</dd>');
  expect(page.text).toContain('<dt>Fin del periodo actual <code class="muted">current_period_end</code></dt>');
  expect(page.text).toMatch(/<details class="card"><summary>El objeto completo \(JSON, como lo devuelve la API\)<\/summary>\s*<pre>\{/);

  const english = await v.get(`/dashboard/subscriptions/${sub.id}?locale=en`);
  const en = timeline(english.text);
  expect(en.find((e) => e.type === 'charge.paid')?.sentence).toBe('Payment of COP 49,900 approved with Visa •••• 4242');
  expect(en.find((e) => e.type === 'subscription.created')?.sentence).toBe(`Subscription created: ${product.name} · COP 49,900 a month`);
  expect(en.find((e) => e.type === 'subscription.canceled')?.sentence).toBe(`${email} (Support) canceled immediately`);
  expect(english.text).toContain('<dt>Billing period <code class="muted">billing_period</code></dt>');
});

test('a cancellation at the period end by a support member reads so, with the date', async () => {
  const api = t.as(keys.test_key);
  const { monthly, customer } = await billingSetup(api);
  const sub = (await api.post('/v1/subscriptions', { customer: customer.id, items: [{ price: monthly.id, quantity: 1 }], collection_method: 'charge', payment_information: card() })).body;
  const { visitor: v, email } = await signInMember(t, keys.id, 'support');
  await v.get(`/dashboard/subscriptions/${sub.id}?locale=es`);
  expect((await v.post(`/dashboard/subscriptions/${sub.id}/cancel`, { cancel_at: 'period_end' })).status).toBe(303);
  const end = (await api.get(`/v1/subscriptions/${sub.id}`)).body.cancel_at;
  const day = new Intl.DateTimeFormat('es-CO', { dateStyle: 'long', timeZone: 'America/Bogota' }).format(new Date(end));
  const entries = timeline((await v.get(`/dashboard/subscriptions/${sub.id}`)).text);
  expect(entries.find((e) => e.type === 'subscription.pending_canceled')?.sentence).toBe(`${email} (Soporte) canceló al final del periodo, el ${day}`);
});
