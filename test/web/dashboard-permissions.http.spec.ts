import { EVENT_STORE } from '#platform/tokens.js';
import type { EventStore } from '#event-store/event-store.port.js';
import { billingSetup, card } from '../support/billing-fixtures.js';
import { signInMember } from '../support/dashboard-member.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Roles in the dashboard, checked on the server: what a role may not do is neither offered (no form, no
 * button) nor done when posted anyway (a forged POST with a valid CSRF token is a 403 page and writes
 * no event); what a member does is recorded with the member as actor and named in the timeline.
 */
let t: TestApp;
let account: { id: string; test_key: string; live_key: string };
beforeAll(async () => {
  t = await startTestApp();
  account = await t.account('Tienda Roles');
});
afterAll(() => t.close());

const api = () => t.as(account.test_key);
const store = () => t.app.get<EventStore>(EVENT_STORE);
/** The actions a detail page offers (its forms' buttons), in page order. */
const offered = (html: string) => [...html.matchAll(/data-action="([a-z_]+)"/g)].map((m) => m[1]);
/** Every event of every stream: a forged post must add none anywhere. */
async function allEvents(): Promise<number> {
  let count = 0;
  let after: string | null = null;
  for (;;) {
    const batch = await store().readAll({ after, maxCount: 5000 });
    if (!batch.length) return count;
    count += batch.length;
    after = batch[batch.length - 1].position;
  }
}
const streamLength = async (stream: string) => (await store().readStream(stream)).length;
/** A 403 answered with the dashboard's own page, in its language. */
function expectForbidden(res: { status: number; text: string }) {
  expect(res.status).toBe(403);
  expect(res.text).toContain('No tienes permiso');
  expect(res.text).toContain('Nada cambió');
  expect(res.text).toContain('class="dash-nav"');
  expect(res.text).toContain('<footer class="site-footer">Panel del comercio</footer>');
}

/** A subscription billed by collection and a collection paid by card, made through the API. */
async function seed() {
  const s = await billingSetup(api());
  const sub = (await api().post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], collection_method: 'collect', days_until_due: 5 })).body;
  expect(sub.status).toBe('active');
  const col = (await api().post('/v1/collections', { customer: s.customer.id, items: [{ price: s.setupFee.id }], collection_method: 'collect', days_until_due: 5 })).body;
  const paid = await api().post(`/v1/collections/${col.id}/pay`, { payment_information: card() });
  expect(paid.body.status).toBe('paid');
  return { ...s, sub, col };
}

test('a viewer sees the lists and the details, but no creation form, no action button and no team or keys page', async () => {
  const { sub, col, customer } = await seed();
  const { visitor: v } = await signInMember(t, account.id, 'viewer');
  for (const list of ['products', 'prices', 'customers', 'subscriptions', 'collections', 'charges', 'test_clocks', 'events']) {
    const page = await v.get(`/dashboard/${list}`);
    expect([list, page.status]).toEqual([list, 200]);
    expect([list, page.text.includes('href="/dashboard/new/')]).toEqual([list, false]);
  }
  expect((await v.get('/dashboard/subscriptions')).text).toContain(`data-id="${sub.id}"`);
  const subscription = await v.get(`/dashboard/subscriptions/${sub.id}`);
  expect(subscription.status).toBe(200);
  expect(subscription.text).toContain('data-field="status" data-value="active"');
  expect(offered(subscription.text)).toEqual([]);
  expect(subscription.text).not.toContain(`action="/dashboard/subscriptions/${sub.id}/`);
  const collection = await v.get(`/dashboard/collections/${col.id}`);
  expect(collection.status).toBe(200);
  expect(offered(collection.text)).toEqual([]);
  expect((await v.get(`/dashboard/customers/${customer.id}`)).status).toBe(200);
  // The menu offers no page of the team or the keys; the creation forms' own pages are refused too.
  const menu = /<nav class="dash-nav"[\s\S]*?<\/nav>/.exec(subscription.text)![0];
  expect(menu).not.toContain('href="/dashboard/team"');
  expect(menu).not.toContain('href="/dashboard/keys"');
  expect(menu).toContain('(Solo lectura)');
  expectForbidden(await v.get('/dashboard/new/customer'));
  // The same pages for an owner do offer them (the check above can fail).
  const { visitor: owner } = await signInMember(t, account.id, 'owner');
  expect((await owner.get('/dashboard/customers')).text).toContain('href="/dashboard/new/customer"');
  expect(offered((await owner.get(`/dashboard/subscriptions/${sub.id}`)).text)).toEqual(['cancel', 'pause']);
  expect(offered((await owner.get(`/dashboard/collections/${col.id}`)).text)).toEqual(['refund']);
});

test('every forged POST by a viewer (a valid CSRF token, a form it is not offered) answers the 403 page and writes nothing', async () => {
  const { sub, col } = await seed();
  const { visitor: v } = await signInMember(t, account.id, 'viewer');
  await v.get(`/dashboard/subscriptions/${sub.id}`);
  const customersBefore = (await api().get('/v1/customers?limit=100')).body.data.length;
  const before = { all: await allEvents(), sub: await streamLength(`subscription-${sub.id}`), col: await streamLength(`collection-${col.id}`) };
  expectForbidden(await v.post('/dashboard/new/customer', { email: `forjado.${Date.now()}@example.com`, name: 'Cliente Forjado' }));
  expectForbidden(await v.post(`/dashboard/subscriptions/${sub.id}/cancel`, { cancel_at: 'now' }));
  expectForbidden(await v.post(`/dashboard/subscriptions/${sub.id}/pause`, {}));
  expectForbidden(await v.post(`/dashboard/collections/${col.id}/refund`, { amount: '1000' }));
  expectForbidden(await v.post('/dashboard/new/product', { name: 'Producto Forjado' }));
  expect(await streamLength(`subscription-${sub.id}`)).toBe(before.sub);
  expect(await streamLength(`collection-${col.id}`)).toBe(before.col);
  expect(await allEvents()).toBe(before.all);
  expect((await api().get('/v1/customers?limit=100')).body.data.length).toBe(customersBefore);
  expect((await api().get(`/v1/subscriptions/${sub.id}`)).body).toMatchObject({ status: 'active', canceled_at: null });
  expect((await api().get(`/v1/collections/${col.id}`)).body).toMatchObject({ status: 'paid', amount_refunded: '0.00' });
  // In English when the page is.
  const en = await v.post(`/dashboard/subscriptions/${sub.id}/cancel`, { cancel_at: 'now', locale: 'en' });
  expect(en.status).toBe(403);
  expect(en.text).toContain('You do not have permission');
  expect(await allEvents()).toBe(before.all);
});

test('a support member cancels a subscription through its page: the event names the member as actor, and the timeline names who did it', async () => {
  const { sub } = await seed();
  const email = `ana.soporte.${Date.now()}@example.com`;
  const { visitor: v, memberId } = await signInMember(t, account.id, 'support', { email });
  expect(memberId).toMatch(/^mem_/);
  const detail = await v.get(`/dashboard/subscriptions/${sub.id}`);
  expect(offered(detail.text)).toEqual(['cancel', 'pause']);
  // Made through the API with a key: the timeline names nobody.
  expect(detail.text).not.toContain('class="actor"');
  const canceled = await v.post(`/dashboard/subscriptions/${sub.id}/cancel`, { cancel_at: 'now' });
  expect(canceled.status).toBe(303);
  expect((await api().get(`/v1/subscriptions/${sub.id}`)).body.status).toBe('canceled');
  const events = await store().readStream(`subscription-${sub.id}`);
  const cancelEvent = events.find((e) => e.type === 'subscription.canceled')!;
  expect(cancelEvent).toBeDefined();
  expect(cancelEvent.metadata.actor).toEqual({ type: 'dashboard', member: memberId });
  // Only the cancel's events name the member: the creation (by the API) names no one.
  expect(events.find((e) => e.type === 'subscription.created')!.metadata.actor).toBeUndefined();
  // The timeline: who canceled it, by e-mail and role in words; in English too.
  const page = await v.get(`/dashboard/subscriptions/${sub.id}`);
  // An entry: its attributes after the type, then its sentence and the rest.
  const entry = (type: string, html: string) => new RegExp(`<li data-event="evt_[0-9a-f]+" data-type="${type.replace('.', '\\.')}"(.*?)</li>`).exec(html)?.[1] ?? '';
  expect(entry('subscription.canceled', page.text)).toContain(` data-actor="${memberId}"><strong class="sentence">${email} (Soporte) canceló de inmediato</strong>`);
  expect(entry('subscription.created', page.text)).not.toContain('data-actor');
  expect(entry('subscription.created', page.text)).not.toContain('class="actor"');
  const english = await v.get(`/dashboard/subscriptions/${sub.id}?locale=en`);
  expect(entry('subscription.canceled', english.text)).toContain(`${email} (Support) canceled immediately`);
  // Another member reading the same timeline sees the same name.
  const { visitor: viewer } = await signInMember(t, account.id, 'viewer');
  expect(entry('subscription.canceled', (await viewer.get(`/dashboard/subscriptions/${sub.id}?locale=es`)).text)).toContain(`${email} (Soporte) canceló de inmediato`);
  // The API's history is unchanged: no actor, no member.
  const history = (await api().get(`/v1/subscriptions/${sub.id}/history`)).body.data;
  const apiCancel = history.find((e: { type: string }) => e.type === 'subscription.canceled');
  expect(Object.keys(apiCancel).sort()).toEqual(['created', 'data', 'id', 'is_test', 'object', 'request', 'type']);
  expect(JSON.stringify(history)).not.toContain(memberId);
  expect(JSON.stringify((await api().get(`/v1/events/${apiCancel.id}`)).body)).not.toContain(memberId);
});

test('an analyst cannot refund (403, nothing written); a support member can, and is named as actor', async () => {
  const { col } = await seed();
  const { visitor: analyst } = await signInMember(t, account.id, 'analyst');
  const page = await analyst.get(`/dashboard/collections/${col.id}`);
  expect(page.status).toBe(200);
  expect(offered(page.text)).toEqual([]);
  const before = { col: await streamLength(`collection-${col.id}`), all: await allEvents() };
  expectForbidden(await analyst.post(`/dashboard/collections/${col.id}/refund`, { amount: '1000' }));
  expect(await streamLength(`collection-${col.id}`)).toBe(before.col);
  expect(await allEvents()).toBe(before.all);
  expect((await api().get(`/v1/collections/${col.id}`)).body.amount_refunded).toBe('0.00');
  // The same form, posted by a role that may refund, does refund.
  const { visitor: support, memberId } = await signInMember(t, account.id, 'support');
  expect(offered((await support.get(`/dashboard/collections/${col.id}`)).text)).toEqual(['refund']);
  expect((await support.post(`/dashboard/collections/${col.id}/refund`, { amount: '1000' })).status).toBe(303);
  expect((await api().get(`/v1/collections/${col.id}`)).body.amount_refunded).toBe('1000.00');
  const refunded = (await store().readStream(`collection-${col.id}`)).slice(before.col);
  expect(refunded.length).toBeGreaterThan(0);
  for (const e of refunded) expect([e.type, e.metadata.actor]).toEqual([e.type, { type: 'dashboard', member: memberId }]);
});
