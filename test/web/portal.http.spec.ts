import { EVENT_STORE } from '#platform/tokens.js';
import type { EventStore } from '#event-store/event-store.port.js';
import { billingSetup, card } from '../support/billing-fixtures.js';
import { pageVisitor } from '../support/page-session.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await startTestApp();
  key = (await t.account()).test_key;
});
afterAll(() => t.close());

const api = () => t.as(key);

async function customerWithSubscription() {
  const s = await billingSetup(api());
  const sub = (await api().post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], collection_method: 'charge', payment_information: card() })).body;
  expect(sub.status).toBe('active');
  return { ...s, sub };
}

async function portalLink(customer: string, extra: Record<string, unknown> = {}) {
  const res = await api().post('/v1/portal_sessions', { customer, ...extra });
  expect(res.status).toBe(200);
  return res.body;
}

describe('POST /v1/portal_sessions', () => {
  test('answers a single-use link under {portal_url}/p/login/, valid 15 minutes', async () => {
    const { customer } = await customerWithSubscription();
    const session = await portalLink(customer.id, { return_url: 'https://merchant.example/account' });
    expect(session).toMatchObject({ object: 'portal_session', customer: customer.id, return_url: 'https://merchant.example/account', is_test: true });
    expect(session.id).toMatch(/^ps_[0-9a-f]{32}$/);
    expect(session.url).toMatch(/^http:\/\/localhost:3000\/portal\/p\/login\/[A-Za-z0-9]{40}$/);
    expect(Date.parse(session.expires_at) - Date.parse(session.created)).toBe(15 * 60 * 1000);
  });

  test('refuses another account\'s customer, a live key\'s view of a test customer, and bad input (4xx, nothing written)', async () => {
    const { customer } = await customerWithSubscription();
    const other = await t.account('Other');
    expect((await t.as(other.test_key).post('/v1/portal_sessions', { customer: customer.id })).status).toBe(404);
    expect((await t.as((await t.account('x')).live_key).post('/v1/portal_sessions', { customer: customer.id })).status).toBe(404);
    const missing = await api().post('/v1/portal_sessions', {});
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'parameter_missing', param: 'customer' });
    const badUrl = await api().post('/v1/portal_sessions', { customer: customer.id, return_url: 'javascript:alert(1)' });
    expect(badUrl.status).toBe(400);
    expect(badUrl.body.error.param).toBe('return_url');
    expect((await t.http().post('/v1/portal_sessions').send({ customer: customer.id })).status).toBe(401);
  });
});

describe('the portal pages', () => {
  test('the link opens once: a session cookie (signed, HttpOnly, SameSite) for that customer; a second open is refused', async () => {
    const { customer, sub } = await customerWithSubscription();
    const { url, id } = await portalLink(customer.id);
    const path = new URL(url).pathname;
    const v = pageVisitor(t);
    const opened = await v.get(path);
    expect(opened.status).toBe(303);
    expect(opened.headers.location).toMatch(/^\/portal\/p\?/);
    const setCookie = ([] as string[]).concat(opened.headers['set-cookie']).find((c) => c.startsWith('portal_session='))!;
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Lax/);
    expect(setCookie).toMatch(/Path=\/portal/);
    const home = await v.get(opened.headers.location);
    expect(home.status).toBe(200);
    expect(home.text).toContain(sub.id);
    expect(home.text).toContain('4242');
    expect(home.text).not.toContain('4242424242424242');
    const stream = await t.app.get<EventStore>(EVENT_STORE).readStream(`portalsession-${id}`);
    expect(stream.map((e) => e.type)).toEqual(['portal_session.created', 'portal_session.opened']);
    expect(stream[1].metadata).toMatchObject({ mode: 'test', actor: { type: 'portal', portal_session: id, customer: customer.id } });
    expect(JSON.stringify(stream)).not.toContain(path.split('/').pop());
    const again = await pageVisitor(t).get(path);
    expect(again.status).toBe(410);
    expect(again.text).toContain('Este enlace ya se usó');
  });

  test('an expired link is refused; a forged or altered cookie is no session', async () => {
    const { customer } = await customerWithSubscription();
    const { url } = await portalLink(customer.id);
    const start = t.clock.now();
    t.clock.advanceMs(15 * 60 * 1000);
    try {
      const res = await pageVisitor(t).get(new URL(url).pathname);
      expect(res.status).toBe(410);
      expect(res.text).toContain('Este enlace venció');
    } finally {
      t.clock.set(start);
    }
    const unknown = await pageVisitor(t).get('/portal/p/login/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    expect(unknown.status).toBe(404);
    const v = pageVisitor(t);
    v.jar.set('portal_session', 'eyJzaWQiOiJwc194In0.forged');
    expect((await v.get('/portal/p')).status).toBe(401);
  });

  test('pause and resume go through the API\'s commands, with the portal as the actor in the events\' metadata', async () => {
    const { customer, sub } = await customerWithSubscription();
    const v = pageVisitor(t);
    await v.get(new URL((await portalLink(customer.id)).url).pathname);
    await v.get('/portal/p');
    const paused = await v.post(`/portal/p/subscriptions/${sub.id}/pause`);
    expect(paused.status).toBe(303);
    expect((await api().get(`/v1/subscriptions/${sub.id}`)).body.status).toBe('paused');
    await v.get('/portal/p');
    expect((await v.post(`/portal/p/subscriptions/${sub.id}/resume`)).status).toBe(303);
    expect((await api().get(`/v1/subscriptions/${sub.id}`)).body.status).toBe('active');
    const events = await t.app.get<EventStore>(EVENT_STORE).readStream(`subscription-${sub.id}`);
    const byType = Object.fromEntries(events.map((e) => [e.type, e.metadata]));
    expect(byType['subscription.paused'].actor).toMatchObject({ type: 'portal', customer: customer.id });
    expect(byType['subscription.resumed'].actor).toMatchObject({ type: 'portal', customer: customer.id });
    expect(byType['subscription.created'].actor).toBeUndefined();
  });

  test('a commitment refuses cancel now, said in the page\'s language (Spanish, then English); period_end schedules it', async () => {
    const s = await billingSetup(api());
    const sub = (await api().post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], collection_method: 'charge', payment_information: card(), commitment_periods: 3 })).body;
    const apiRefusal = await api().post(`/v1/subscriptions/${sub.id}/cancel`, { cancel_at: 'now' });
    expect(apiRefusal.status).toBe(409);
    const v = pageVisitor(t);
    await v.get(new URL((await portalLink(s.customer.id)).url).pathname);
    await v.get(`/portal/p/subscriptions/${sub.id}/cancel?cancel_at=now`);
    const refused = await v.post(`/portal/p/subscriptions/${sub.id}/cancel`, { cancel_at: 'now', confirm: 'yes' });
    expect(refused.status).toBe(409);
    expect(refused.text).toMatch(/Tiene un compromiso de permanencia hasta el \d{1,2} de [a-z]+ de \d{4}: no se puede cancelar ahora/);
    expect(refused.text).not.toContain(apiRefusal.body.error.message.replace(/'/g, '&#39;'));
    const english = await v.post(`/portal/p/subscriptions/${sub.id}/cancel`, { cancel_at: 'now', confirm: 'yes', locale: 'en' });
    expect(english.text).toMatch(/It is committed until [A-Z][a-z]+ \d{1,2}, \d{4}: it cannot be canceled now/);
    // A refused card number, in each language.
    await v.get(`/portal/p/subscriptions/${sub.id}/payment_method`);
    const badCard = await v.post(`/portal/p/subscriptions/${sub.id}/payment_method`, { number: '1234', exp_month: '12', exp_year: '2031', cvc: '123' });
    expect(badCard.status).toBe(400);
    expect(badCard.text).toContain('El número de tarjeta no es válido.');
    expect(badCard.text).not.toContain('not a valid card number');
    const badCardEn = await v.post(`/portal/p/subscriptions/${sub.id}/payment_method`, { number: '1234', exp_month: '12', exp_year: '2031', cvc: '123', locale: 'en' });
    expect(badCardEn.text).toContain('The card number is not valid.');
    await v.get(`/portal/p/subscriptions/${sub.id}/cancel?cancel_at=period_end`);
    expect((await v.post(`/portal/p/subscriptions/${sub.id}/cancel`, { cancel_at: 'period_end', confirm: 'yes' })).status).toBe(303);
    expect((await api().get(`/v1/subscriptions/${sub.id}`)).body.status).toBe('pending_cancel');
  });

  test('cancel asks to confirm first, saying what is lost; a post without the confirmation cancels nothing', async () => {
    const { customer, sub } = await customerWithSubscription();
    const v = pageVisitor(t);
    await v.get(new URL((await portalLink(customer.id)).url).pathname);
    const home = await v.get('/portal/p');
    // The account page links to the confirmation; it has no form that cancels.
    expect(home.text).toContain(`href="/portal/p/subscriptions/${sub.id}/cancel?cancel_at=now&amp;locale=es"`);
    expect(home.text).not.toMatch(/action="[^"]*\/cancel"/);
    // A post that skips the confirmation (an old page, a forged form) is sent to it; nothing is decided.
    const skipped = await v.post(`/portal/p/subscriptions/${sub.id}/cancel`, { cancel_at: 'now' });
    expect(skipped.status).toBe(303);
    expect(skipped.headers.location).toBe(`/portal/p/subscriptions/${sub.id}/cancel?cancel_at=now&locale=es`);
    expect((await api().get(`/v1/subscriptions/${sub.id}`)).body.status).toBe('active');
    const confirm = await v.get(skipped.headers.location);
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain('¿Cancelar tu suscripción ahora?');
    expect(confirm.text).toMatch(/Pierdes de inmediato lo que queda del periodo que ya pagaste \(hasta el \d{1,2} de [a-z]+ de \d{4}\)/);
    expect(confirm.text).toContain('No se reembolsa el periodo en curso.');
    expect(confirm.text).toContain('name="confirm" value="yes"');
    expect(confirm.text).toContain('name="_csrf"');
    expect(confirm.text).toContain('No, mantener mi suscripción');
    // Without the CSRF token the confirmation is refused too.
    expect((await v.post(`/portal/p/subscriptions/${sub.id}/cancel`, { cancel_at: 'now', confirm: 'yes' }, false)).status).toBe(403);
    expect((await api().get(`/v1/subscriptions/${sub.id}`)).body.status).toBe('active');
    const done = await v.post(`/portal/p/subscriptions/${sub.id}/cancel`, { cancel_at: 'now', confirm: 'yes' });
    expect(done.status).toBe(303);
    expect((await api().get(`/v1/subscriptions/${sub.id}`)).body.status).toBe('canceled');
  });

  test('after cancel at period end the page says when the plan ends and offers to keep it; keeping withdraws the cancellation', async () => {
    const { customer, sub } = await customerWithSubscription();
    const v = pageVisitor(t);
    await v.get(new URL((await portalLink(customer.id)).url).pathname);
    const confirm = await v.get(`/portal/p/subscriptions/${sub.id}/cancel?cancel_at=period_end&locale=en`);
    expect(confirm.text).toContain('Cancel at the end of the period?');
    expect(confirm.text).toMatch(/You keep your plan until [A-Z][a-z]+ \d{1,2}, \d{4}; it ends that day\./);
    await v.get(`/portal/p/subscriptions/${sub.id}/cancel?cancel_at=period_end`);
    expect((await v.post(`/portal/p/subscriptions/${sub.id}/cancel`, { cancel_at: 'period_end', confirm: 'yes' })).status).toBe(303);
    const pending = (await api().get(`/v1/subscriptions/${sub.id}`)).body;
    expect(pending).toMatchObject({ status: 'pending_cancel', cancel_at: sub.current_period_end });
    const page = await v.get('/portal/p?notice=pending_cancel');
    expect(page.text).toContain(`data-ends-at="${pending.cancel_at}"`);
    expect(page.text).toMatch(/Tu plan termina el \d{1,2} de [a-z]+ de \d{4}\./);
    expect(page.text).toContain('Mantener mi suscripción');
    const kept = await v.post(`/portal/p/subscriptions/${sub.id}/keep`);
    expect(kept.status).toBe(303);
    expect(kept.headers.location).toBe('/portal/p?locale=es&notice=kept');
    expect((await api().get(`/v1/subscriptions/${sub.id}`)).body).toMatchObject({ status: 'active', cancel_at: null });
    const after = await v.get(kept.headers.location);
    expect(after.text).toContain('tu suscripción sigue activa');
    expect(after.text).not.toContain('data-ends-at');
    const events = await t.app.get<EventStore>(EVENT_STORE).readStream(`subscription-${sub.id}`);
    expect(events.at(-1)).toMatchObject({ type: 'subscription.cancellation_withdrawn', metadata: { actor: { type: 'portal', customer: customer.id } } });
  });

  test('another customer\'s subscription is not found, whatever id the request carries; nothing changes', async () => {
    const mine = await customerWithSubscription();
    const theirs = await customerWithSubscription();
    const v = pageVisitor(t);
    await v.get(new URL((await portalLink(mine.customer.id)).url).pathname);
    const home = await v.get('/portal/p');
    expect(home.text).not.toContain(theirs.sub.id);
    expect(home.text).not.toContain(theirs.customer.id);
    for (const action of ['pause', 'cancel', 'payment_method']) {
      const res = await v.post(`/portal/p/subscriptions/${theirs.sub.id}/${action}`, { cancel_at: 'now', number: '4242424242424242', exp_month: '12', exp_year: '2030' });
      expect(res.status).toBe(404);
    }
    expect((await v.get(`/portal/p/subscriptions/${theirs.sub.id}/payment_method`)).status).toBe(404);
    expect((await api().get(`/v1/subscriptions/${theirs.sub.id}`)).body.status).toBe('active');
    // Without the CSRF token nothing happens either.
    expect((await v.post(`/portal/p/subscriptions/${mine.sub.id}/pause`, {}, false)).status).toBe(403);
    expect((await api().get(`/v1/subscriptions/${mine.sub.id}`)).body.status).toBe('active');
  });

  test('a new card recovers a past_due subscription: saved (brand and last four only), its open collection paid, active again', async () => {
    const clock = (await api().post('/v1/test_helpers/test_clocks', { frozen_time: '2026-01-15T12:00:00.000Z' })).body;
    const s = await billingSetup(api());
    const customer = (await api().post('/v1/customers', { email: `pd.${Date.now()}@example.com`, name: 'Pau Díaz', test_clock: clock.id })).body;
    const sub = (await api().post('/v1/subscriptions', { customer: customer.id, items: [{ price: s.monthly.id }], collection_method: 'charge', payment_information: card() })).body;
    const declining = (await api().post('/v1/payment_methods/migrate', { customer: customer.id, gateway: 'gateway_a', type: 'card', token: 'simtok_decline_p1', card: { brand: 'visa', last4: '0002', exp_month: 1, exp_year: 2030 } })).body;
    await api().post(`/v1/subscriptions/${sub.id}/update`, { payment_method: declining.id });
    expect((await api().post(`/v1/test_helpers/test_clocks/${clock.id}/advance`, { frozen_time: '2026-02-15T12:00:00.000Z' })).status).toBe(200);
    const overdue = (await api().get(`/v1/subscriptions/${sub.id}`)).body;
    expect(overdue.status).toBe('past_due');
    const v = pageVisitor(t);
    await v.get(new URL((await portalLink(customer.id)).url).pathname);
    const form = await v.get(`/portal/p/subscriptions/${sub.id}/payment_method`);
    expect(form.status).toBe(200);
    const bad = await v.post(`/portal/p/subscriptions/${sub.id}/payment_method`, { number: '4242424242424241', exp_month: '12', exp_year: '2030' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('El número de tarjeta no es válido.');
    const ok = await v.post(`/portal/p/subscriptions/${sub.id}/payment_method`, { number: '5555 5555 5555 4444', exp_month: '11', exp_year: '2031', cvc: '123' });
    expect(ok.status).toBe(303);
    expect(ok.headers.location).toContain('notice=recovered');
    const after = (await api().get(`/v1/subscriptions/${sub.id}`)).body;
    expect(after.status).toBe('active');
    expect((await api().get(`/v1/collections/${overdue.latest_collection}`)).body.status).toBe('paid');
    const pm = (await api().get(`/v1/payment_methods/${after.payment_method}`)).body;
    expect(pm.card).toMatchObject({ brand: 'mastercard', last4: '4444' });
    const page = await v.get('/portal/p');
    expect(page.text).toContain('4444');
    expect(page.text).not.toContain('5555555555554444');
  });

  test('a pending collection is paid with a saved card (the API\'s pay command); another customer\'s collection or card gets nothing', async () => {
    const s = await billingSetup(api());
    const sub = (await api().post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], collection_method: 'collect', days_until_due: 10 })).body;
    const saved = (await api().post('/v1/payment_methods/migrate', { customer: s.customer.id, gateway: 'gateway_a', type: 'card', token: 'simtok_approve_portal1', card: { brand: 'visa', last4: '1111', exp_month: 1, exp_year: 2031 } })).body;
    const stranger = await customerWithSubscription();
    const strangerCard = (await api().get(`/v1/customers/${stranger.customer.id}/payment_methods`)).body.data[0].id;
    const theirCollection = stranger.sub.latest_collection;
    const v = pageVisitor(t);
    await v.get(new URL((await portalLink(s.customer.id)).url).pathname);
    const home = await v.get('/portal/p');
    expect(home.text).toContain(`/portal/p/collections/${sub.latest_collection}/pay`);
    expect(home.text).toContain(`/checkout/col/${sub.latest_collection}`);
    expect((await v.post(`/portal/p/collections/${theirCollection}/pay`, { payment_method: saved.id })).status).toBe(404);
    const wrongCard = await v.post(`/portal/p/collections/${sub.latest_collection}/pay`, { payment_method: strangerCard });
    expect(wrongCard.status).toBe(400);
    expect(wrongCard.text).toContain('Elige uno de tus medios de pago guardados.');
    expect(wrongCard.text).not.toContain('does not belong');
    expect((await api().get(`/v1/collections/${sub.latest_collection}`)).body.status).toBe('pending');
    await v.get('/portal/p');
    const paid = await v.post(`/portal/p/collections/${sub.latest_collection}/pay`, { payment_method: saved.id });
    expect(paid.status).toBe(303);
    expect((await api().get(`/v1/collections/${sub.latest_collection}`)).body.status).toBe('paid');
    const events = await t.app.get<EventStore>(EVENT_STORE).readStream(`collection-${sub.latest_collection}`);
    expect(events.find((e) => e.type === 'collection.paid')!.metadata.actor).toMatchObject({ type: 'portal', customer: s.customer.id });
  });
});
