import { billingSetup, card } from '../support/billing-fixtures.js';
import { csrfOf, openSession } from '../support/hosted-page.js';
import { signInMember } from '../support/dashboard-member.js';
import { crawlLinks, describeBroken, fetchWith, linksOf } from '../support/link-crawler.js';
import { pageVisitor } from '../support/page-session.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Every link a portal or dashboard page shows opens a page: from a seeded account (products, prices,
 * customers, subscriptions bought by API and through checkout — paused, ending, canceled —,
 * collections, charges, a test clock, events), a crawler visits the lists, details, forms, timelines
 * and the pages that answer a refused form, in Spanish and in English, follows every same-origin
 * `<a href>` and expects 200 (or a deliberate redirect to a 200) for each.
 */
let t: TestApp;
let keys: { id: string; test_key: string; live_key: string };
const seeded: Record<string, string> = {};
beforeAll(async () => {
  t = await startTestApp();
  keys = await t.account('Tienda Enlaces');
  const api = t.as(keys.test_key);
  const s = await billingSetup(api);
  seeded.customer = s.customer.id;
  const sub = async (extra: Record<string, unknown> = {}) => (await api.post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], payment_information: card(), ...extra })).body.id as string;
  seeded.active = await sub();
  seeded.paused = await sub();
  await api.post(`/v1/subscriptions/${seeded.paused}/pause`, {});
  seeded.ending = await sub();
  await api.post(`/v1/subscriptions/${seeded.ending}/cancel`, { cancel_at: 'period_end' });
  seeded.canceled = await sub();
  await api.post(`/v1/subscriptions/${seeded.canceled}/cancel`, { cancel_at: 'now' });
  const oneTime = (await api.post('/v1/prices', { product_id: s.product.id, type: 'one_time', unit_price: '80000', currency: 'COP' })).body;
  seeded.collection = (await api.post('/v1/collections', { customer: s.customer.id, items: [{ price: oneTime.id }], collection_method: 'collect', days_until_due: 5 })).body.id;
  await api.post('/v1/test_helpers/test_clocks', { frozen_time: '2026-01-15T12:00:00.000Z', name: 'enlaces' });
  // A subscription bought through checkout: its timeline starts with checkout_session.completed.
  const buyer = (await api.post('/v1/customers', { email: `links.${Date.now()}@example.com`, name: 'Sara Enlaces' })).body;
  const session = (await api.post('/v1/checkout_session', { mode: 'subscription', customer: buyer.id, items: [{ price: s.monthly.id }] })).body;
  const { browser, path, page } = await openSession(t, session.url);
  const paid = await browser.post(`${path}/pay`).type('form').send({ method: 'card', card_number: '4242424242424242', card_exp: '12/30', card_cvc: '123', _csrf: csrfOf(page.text) });
  expect([200, 303]).toContain(paid.status);
  const bought = (await api.get(`/v1/subscriptions?customer=${buyer.id}`)).body.data;
  expect(bought).toHaveLength(1);
  seeded.bought = bought[0].id;
});
afterAll(() => t.close());

/** An owner of the account (every page and form is theirs to open), signed in to the dashboard in test mode. */
async function signedIn() {
  return (await signInMember(t, keys.id, 'owner')).visitor;
}

describe('dashboard', () => {
  test('every link of every page reachable from the lists (and from refused forms) opens a page, in es-CO and en', async () => {
    for (const locale of ['es', 'en']) {
      const v = await signedIn();
      await v.get(`/dashboard/subscriptions?locale=${locale}`);
      // Refused forms: a creation and an action on an object; their pages' links count too.
      await v.get('/dashboard/new/price');
      const refusedForm = await v.post('/dashboard/new/price', { type: 'recurring', billing_period: 'month', billing_interval: '1', currency: 'COP' });
      expect(refusedForm.status).toBe(400);
      await v.get(`/dashboard/subscriptions/${seeded.canceled}`);
      const refusedAction = await v.post(`/dashboard/subscriptions/${seeded.canceled}/pause`, {});
      expect(refusedAction.status).toBe(409);
      const result = await crawlLinks(fetchWith(v), [`/dashboard/subscriptions?locale=${locale}`, `/dashboard/subscriptions/${seeded.bought}`], {
        within: (p) => p.startsWith('/dashboard'),
        pages: [
          { path: '/dashboard/new/price', html: refusedForm.text },
          { path: `/dashboard/subscriptions/${seeded.canceled}/pause`, html: refusedAction.text },
        ],
      });
      expect(describeBroken(result.broken)).toEqual([]);
      // It did see the whole dashboard: every list, a detail of each kind, the forms and the timeline's states.
      const seen = [...result.visited.keys()];
      for (const list of ['products', 'prices', 'customers', 'subscriptions', 'collections', 'charges', 'test_clocks', 'events']) {
        expect(seen.some((p) => p.startsWith(`/dashboard/${list}`))).toBe(true);
        expect(seen.some((p) => new RegExp(`^/dashboard/${list}/[a-z]+_[A-Za-z0-9]+`).test(p))).toBe(true);
      }
      expect(seen.some((p) => /^\/dashboard\/new\/[a-z_]+/.test(p))).toBe(true);
      expect(seen.some((p) => p.includes('as_of=evt_'))).toBe(true);
      expect(result.links).toBeGreaterThan(50);
    }
  });

  test('a viewer is shown no link to a page its role is refused (no 403 behind any link), and no creation form', async () => {
    const { visitor: v } = await signInMember(t, keys.id, 'viewer');
    const result = await crawlLinks(fetchWith(v), ['/dashboard/subscriptions?locale=es', `/dashboard/subscriptions/${seeded.active}`], { within: (p) => p.startsWith('/dashboard') });
    expect(describeBroken(result.broken)).toEqual([]);
    const seen = [...result.visited.keys()];
    expect(seen.some((p) => p.startsWith('/dashboard/new/'))).toBe(false);
    expect(seen.some((p) => /^\/dashboard\/collections\/col_/.test(p))).toBe(true);
    expect(result.links).toBeGreaterThan(20);
  });

  test('a refused form\'s language switch leads to the form\'s page, not to where it posted', async () => {
    const v = await signedIn();
    await v.get('/dashboard/new/product?locale=es');
    const refused = await v.post('/dashboard/new/product', { description: 'sin nombre' });
    expect(refused.status).toBe(400);
    const english = linksOf(refused.text).find((href) => href.includes('locale=en'))!;
    expect(english).toBe('/dashboard/new/product?locale=en');
    const page = await v.get(english);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Create product');
    // An action refused on a detail page: the switch leads to that detail page.
    await v.get(`/dashboard/subscriptions/${seeded.canceled}`);
    const action = await v.post(`/dashboard/subscriptions/${seeded.canceled}/pause`, {});
    expect(linksOf(action.text).find((href) => href.includes('locale='))).toBe(`/dashboard/subscriptions/${seeded.canceled}?locale=es`);
  });

  test('a subscription bought through checkout: every entry of its timeline links its event, and "the state after" opens from the subscription\'s own first entry on', async () => {
    const v = await signedIn();
    const detail = await v.get(`/dashboard/subscriptions/${seeded.bought}?locale=es`);
    const entries = [...detail.text.matchAll(/<li data-event="(evt_[0-9a-f]+)" data-type="([a-z_.]+)"[^>]*>(.*?)<\/li>/g)].map((m) => ({ id: m[1], type: m[2], html: m[3] }));
    expect(entries.map((e) => e.type)).toContain('checkout_session.completed');
    const own = entries.findIndex((e) => e.type === 'subscription.created');
    expect(own).toBeGreaterThanOrEqual(0);
    for (const [i, e] of entries.entries()) {
      expect((await v.get(`/dashboard/events/${e.id}`)).status).toBe(200);
      if (i < own) {
        expect(e.html).not.toContain('as_of=');
        expect(e.html).toContain('antes de crearse la suscripción');
      } else {
        expect(e.html).toContain(`as_of=${e.id}`);
        expect((await v.get(`/dashboard/subscriptions/${seeded.bought}?as_of=${e.id}`)).status).toBe(200);
      }
    }
  });

  test('a dashboard 404 keeps the dashboard\'s layout (menu, brand, footer), never the checkout\'s "Pago seguro"', async () => {
    const v = await signedIn();
    // The state of a subscription as of an event written before it existed (its customer's creation): 404.
    const before = (await t.as(keys.test_key).get(`/v1/events?object_id=${seeded.customer}&type=customer.created`)).body.data[0].id;
    await v.get('/dashboard/subscriptions?locale=es');
    for (const path of [`/dashboard/subscriptions/${seeded.active}?as_of=${before}`, '/dashboard/subscriptions/sub_doesnotexist', '/dashboard/nothing/here/at/all', '/dashboard/new/nothing']) {
      const res = await v.get(path);
      expect([path, res.status]).toEqual([path, 404]);
      expect(res.text).toContain('Página no encontrada');
      expect(res.text).toContain('<footer class="site-footer">Panel del comercio</footer>');
      expect(res.text).not.toContain('Pago seguro');
      expect(res.text).toContain('class="dash-nav"');
      expect(res.text).toContain('Tienda Enlaces · Panel');
      expect(res.text).toContain('data-mode="test"');
    }
    const en = await v.get('/dashboard/products/prod_doesnotexist?locale=en');
    expect(en.status).toBe(404);
    expect(en.text).toContain('Page not found');
    expect(en.text).toContain('<footer class="site-footer">Merchant dashboard</footer>');
    // Not signed in: still the dashboard's page (no menu), with a way in.
    const anonymous = await pageVisitor(t).get('/dashboard/nothing/here/at/all');
    expect(anonymous.status).toBe(404);
    expect(anonymous.text).toContain('Panel del comercio');
    expect(anonymous.text).not.toContain('class="dash-nav"');
    expect(anonymous.text).toContain('href="/dashboard"');
  });
});

describe('portal', () => {
  test('every link of the portal\'s pages (account, card form, cancel confirmations, a refused payment) opens a page, in es-CO and en', async () => {
    for (const locale of ['es', 'en']) {
      const v = pageVisitor(t);
      const link = (await t.as(keys.test_key).post('/v1/portal_sessions', { customer: seeded.customer })).body.url;
      expect((await v.get(new URL(link).pathname)).status).toBe(303);
      const home = await v.get(`/portal/p?locale=${locale}`);
      expect(home.status).toBe(200);
      const refused = await v.post(`/portal/p/collections/${seeded.collection}/pay`, { locale, payment_method: 'pm_notmine' });
      expect(refused.status).toBeGreaterThanOrEqual(400);
      const result = await crawlLinks(fetchWith(v), [`/portal/p?locale=${locale}`], {
        within: (p) => p.startsWith('/portal'),
        pages: [{ path: `/portal/p/collections/${seeded.collection}/pay`, html: refused.text }],
      });
      expect(describeBroken(result.broken)).toEqual([]);
      const seen = [...result.visited.keys()];
      expect(seen.some((p) => /\/cancel\?cancel_at=now/.test(p))).toBe(true);
      expect(seen.some((p) => /\/cancel\?cancel_at=period_end/.test(p))).toBe(true);
      expect(seen.some((p) => /\/payment_method/.test(p))).toBe(true);
    }
  });
});

describe('checkout pages', () => {
  const approving = { method: 'card', card_number: '4242424242424242', card_exp: '12/30', card_cvc: '123' };

  test('every link of the checkout pages opens a page — a session open, after a decline, paid, awaiting the bank, expired; a collection pending, processing, paid; a payment link, deactivated; a storefront; the simulated bank — in es-CO and en', async () => {
    const api = t.as(keys.test_key);
    const s = await billingSetup(api);
    const oneTime = (await api.post('/v1/prices', { product_id: s.product.id, type: 'one_time', unit_price: '25000', currency: 'COP' })).body;
    for (const locale of ['es', 'en']) {
      const q = `?locale=${locale}`;
      const lang = locale === 'en' ? 'en' : 'es-CO';
      const newSession = async (extra: Record<string, unknown> = {}) => (await api.post('/v1/checkout_session', { mode: 'payment', customer: s.customer.id, items: [{ price: oneTime.id }], ...extra })).body;
      const origin = new URL((await newSession()).url).origin;
      const crawls: Array<{ agent: ReturnType<typeof pageVisitor> | Awaited<ReturnType<typeof openSession>>['browser']; starts: string[] }> = [];

      // Sessions: open; declined (post/redirect/get: the page after it); paid (thank-you, a subscription); awaiting the bank; declined then expired.
      const open = await openSession(t, (await newSession()).url);
      crawls.push({ agent: open.browser, starts: [`${open.path}${q}`] });
      const declined = await openSession(t, (await newSession()).url);
      const post = await declined.browser.post(`${declined.path}/pay`).type('form').send({ ...approving, card_number: '4000000000000002', locale: lang, _csrf: csrfOf(declined.page.text) });
      expect(post.status).toBe(303);
      crawls.push({ agent: declined.browser, starts: [post.headers.location] });
      const paid = await openSession(t, (await api.post('/v1/checkout_session', { mode: 'subscription', customer: s.customer.id, items: [{ price: s.monthly.id }] })).body.url);
      expect((await paid.browser.post(`${paid.path}/pay`).type('form').send({ ...approving, locale: lang, _csrf: csrfOf(paid.page.text) })).status).toBe(303);
      crawls.push({ agent: paid.browser, starts: [`${paid.path}${q}`] });
      const pse = await openSession(t, (await newSession()).url);
      const toBank = await pse.browser.post(`${pse.path}/pay`).type('form').send({ method: 'pse', bank_code: '1007', locale: lang, _csrf: csrfOf(pse.page.text) });
      expect(toBank.status).toBe(303);
      crawls.push({ agent: pse.browser, starts: [`${pse.path}${q}`] });
      const late = await newSession();
      const expired = await openSession(t, late.url);
      await expired.browser.post(`${expired.path}/pay`).type('form').send({ ...approving, card_number: '4000000000000002', locale: lang, _csrf: csrfOf(expired.page.text) });
      expect((await api.post(`/v1/checkout_session/${late.id}/expire`)).status).toBe(200);
      crawls.push({ agent: expired.browser, starts: [`${expired.path}${q}`] });

      // Collections: pending, awaiting the bank (its bank page), paid; a payment link and a deactivated one (its 410 page); a storefront.
      const collection = async () => (await api.post('/v1/collections', { customer: s.customer.id, items: [{ price: oneTime.id }], collection_method: 'collect', days_until_due: 5 })).body.id as string;
      const pending = await collection();
      const processing = await collection();
      const visitor = pageVisitor(t);
      await visitor.get(`/checkout/col/${processing}${q}`);
      const bank = await visitor.post(`/checkout/col/${processing}/pay`, { method: 'pse', bank_code: '1051', locale: lang });
      expect(bank.status).toBe(303);
      const paidCollection = await collection();
      expect((await api.post(`/v1/collections/${paidCollection}/pay`, { payment_information: { gateway: 'gateway_a', type: 'card', card: { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '123' } } })).status).toBe(200);
      const link = (await api.post('/v1/payment_links', { items: [{ price: oneTime.id }] })).body;
      const closed = (await api.post('/v1/payment_links', { items: [{ price: oneTime.id }] })).body;
      expect((await api.post(`/v1/payment_links/${closed.id}/update`, { active: false })).status).toBe(200);
      const storefront = (await api.post('/v1/storefronts', { name: 'Vitrina', items: [{ price: s.monthly.id }, { price: oneTime.id }] })).body;
      crawls.push({
        agent: visitor,
        starts: [`/checkout/col/${pending}${q}`, `/checkout/col/${processing}${q}`, `/checkout/col/${paidCollection}${q}`, `/checkout/pl/${link.id}${q}`, `/checkout/pl/${closed.id}${q}`, `/checkout/sf/${storefront.id}${q}`],
      });

      const seen: string[] = [];
      for (const { agent, starts } of crawls) {
        const result = await crawlLinks(fetchWith(agent), starts, { within: (p) => p.startsWith('/checkout'), accept: (p, status) => status === 410 && p.startsWith('/checkout/pl/') }, origin);
        expect(describeBroken(result.broken)).toEqual([]);
        seen.push(...result.visited.keys());
      }
      // It did reach each kind of page, in both languages, and the bank page from a processing payment.
      for (const kind of ['/checkout/cs/', '/checkout/col/', '/checkout/pl/', '/checkout/sf/', '/checkout/sim/']) expect([kind, seen.some((p) => p.startsWith(kind))]).toEqual([kind, true]);
      expect(seen.some((p) => p.includes('locale=en'))).toBe(true);
      expect(seen.some((p) => p.includes('locale=es'))).toBe(true);
    }
  });
});
