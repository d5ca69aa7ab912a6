import { billingSetup, card } from '#test/support/billing-fixtures.js';
import { signInMember } from '#test/support/dashboard-member.js';
import { advance, clockAndCustomer } from '#test/support/lifecycle.js';
import { startTestApp, type TestApp } from '#test/support/test-app.js';
import { formatMoney } from '#web/format.js';

/**
 * The dashboard's home page: the revenue report of a range as cards, charts and tables, for members
 * whose role reads reports; its controls in the URL, refused next to the field with a 400; the
 * movements page listing each movement with its event. Figures equal the API's report.
 */
let t: TestApp;
let account: { id: string; test_key: string };
let subscriptionId: string;
const api = () => t.as(account.test_key);
const RANGE = 'from=2027-01-01&to=2027-03-31&interval=month&currency=COP';
/** 2027-03-31 19:00 in Bogotá = 2027-04-01T00:00:00Z. */
const AS_OF = '2027-03-31T19:00';

beforeAll(async () => {
  t = await startTestApp();
  account = await t.account('Tienda Inicio');
  const s = await billingSetup(api(), { unitPrice: '49900' });
  const { clock, customer } = await clockAndCustomer(api(), '2027-01-10T15:00:00.000Z');
  const sub = (await api().post('/v1/subscriptions', { customer: customer.id, items: [{ price: s.monthly.id }], payment_information: card() })).body;
  expect(sub.status).toBe('active');
  subscriptionId = sub.id;
  await advance(api(), clock.id, '2027-03-15T15:00:00.000Z');
  expect((await api().post(`/v1/subscriptions/${sub.id}/cancel`, { cancel_at: 'now' })).status).toBe(200);
});
afterAll(() => t.close());

/** The text of a headline card. */
const card$ = (html: string, key: string) => new RegExp(`data-figure="${key}"><span class="figure-label">[^<]*</span><span class="figure">([^<]*)</span>`).exec(html)?.[1];

test('an owner lands on the home page and sees the cards, three charts and their tables, with the API’s figures', async () => {
  const { visitor } = await signInMember(t, account.id, 'owner');
  const root = await visitor.get('/dashboard');
  expect(root.status).toBe(303);
  expect(root.headers.location).toBe('/dashboard/home');

  const page = await visitor.get(`/dashboard/home?${RANGE}&as_of=${encodeURIComponent(AS_OF)}`);
  expect(page.status).toBe(200);
  const html = page.text;
  // The menu opens with the home page.
  expect(/<nav class="dash-nav"[^>]*>\s*<a href="([^"]+)">([^<]+)<\/a>/.exec(html)?.slice(1)).toEqual(['/dashboard/home', 'Inicio']);
  for (const key of ['mrr', 'active_subscriptions', 'paying_customers', 'arpu', 'net_revenue', 'at_risk', 'recovered', 'subscriber_churn_rate', 'revenue_churn_rate', 'renewals_7', 'renewals_30']) {
    expect(card$(html, key)).toBeDefined();
  }
  expect(html.match(/<svg class="chart [^>]*role="img"/g)).toHaveLength(3);
  expect(html.match(/<table class="list report-table"/g)).toHaveLength(3);
  expect(html.match(/<caption>/g)).toHaveLength(3);

  // The same figures as GET /v1/reports/summary for the same range and instant.
  const report = (await api().get(`/v1/reports/summary?${RANGE}&as_of=2027-04-01T00:00:00Z`)).body;
  expect(report.periods).toHaveLength(3);
  expect(html).toContain(`data-as-of="${report.as_of}"`);
  expect(card$(html, 'net_revenue')).toBe(formatMoney(report.totals.net_revenue, 'COP', 'es-CO'));
  expect(card$(html, 'mrr')).toBe(formatMoney(report.totals.mrr, 'COP', 'es-CO'));
  expect(card$(html, 'active_subscriptions')).toBe(String(report.totals.active_subscriptions));
  const janMrr = /<tr data-period="2027-01-01"><th scope="row"[^>]*>[^<]*<\/th><td class="num"[^>]*data-field="mrr">([^<]*)</.exec(html)?.[1];
  expect(janMrr).toBe('$ 49.900');
  expect(janMrr).toBe(formatMoney(report.periods[0].mrr, 'COP', 'es-CO'));
  const marChurn = /<tr data-period="2027-03-01">[\s\S]*?data-field="churn">([^<]*)</.exec(html.slice(html.indexOf('data-table="movements"')))?.[1];
  expect(marChurn).toBe('$ 49.900');
  // Rates in es-CO percentages: the range started with no subscription (no rate), March lost its only one.
  expect(report.totals.subscriber_churn_rate).toBeNull();
  expect(card$(html, 'subscriber_churn_rate')).toBe('—');
  expect(report.periods[2].subscriber_churn_rate).toBe('1.0000');
  expect(/<tr data-period="2027-03-01">[\s\S]*?<td class="num" data-label="Cancelación de suscriptores">([^<]*)</.exec(html.slice(html.indexOf('data-table="movements"')))?.[1]).toBe('100,0 %');

  // The movements page of the same range: the churn and the new subscription, each with its event.
  const link = /href="(\/dashboard\/home\/movements\?[^"]+)" data-action="movements"/.exec(html)![1].replace(/&amp;/g, '&');
  const movements = await visitor.get(link);
  expect(movements.status).toBe(200);
  const rows = [...movements.text.matchAll(/<tr data-id="[^"]+" data-type="([a-z]+)">[\s\S]*?data-field="amount">([^<]*)<[\s\S]*?href="\/dashboard\/subscriptions\/([^"]+)"[\s\S]*?href="\/dashboard\/events\/(evt_[^"]+)"/g)];
  expect(rows.map((r) => [r[1], r[2], r[3]])).toEqual([
    ['churn', '-$ 49.900', subscriptionId],
    ['new', '$ 49.900', subscriptionId],
  ]);
  expect((await api().get(`/v1/events/${rows[0][4]}`)).body.type).toBe('subscription.canceled');
  // The customer by name and e-mail, linked to its page; its id is not in front.
  const customerCell = /data-label="Cliente"><span><a href="\/dashboard\/customers\/(cus_[^"]+)">([^<]*)<\/a><br><span class="muted small">([^<]*)</.exec(movements.text);
  expect(customerCell?.[2]).toBe('Ana Gómez');
  expect(customerCell?.[3]).toMatch(/@example\.com$/);
  const onlyNew = await visitor.get(`${link}&type=new`);
  expect([...onlyNew.text.matchAll(/data-type="([a-z]+)"/g)].map((m) => m[1])).toEqual(['new']);
});

test('in English with ?locale=en', async () => {
  const { visitor } = await signInMember(t, account.id, 'analyst');
  const page = await visitor.get(`/dashboard/home?${RANGE}&as_of=${encodeURIComponent(AS_OF)}&locale=en`);
  expect(page.status).toBe(200);
  expect(page.text).toContain('<html lang="en"');
  expect(page.text).toContain('Paying customers');
  expect(page.text).toContain('MRR movements');
  expect(page.text).not.toMatch(/dash\.(home|movements)\./);
});

test('support may not read reports: /dashboard leads to the subscriptions, /dashboard/home is a 403 page', async () => {
  const { visitor } = await signInMember(t, account.id, 'support');
  const root = await visitor.get('/dashboard');
  expect(root.headers.location).toBe('/dashboard/subscriptions');
  const home = await visitor.get('/dashboard/home');
  expect(home.status).toBe(403);
  expect(home.text).toContain('No tienes permiso');
  expect((await visitor.get('/dashboard/home/movements')).status).toBe(403);
  expect((await visitor.get('/dashboard/subscriptions')).text).not.toContain('href="/dashboard/home"');
});

test('a range that ends before it starts, a bad date or too many periods is a 400 page with the message by the field', async () => {
  const { visitor } = await signInMember(t, account.id, 'viewer');
  const reversed = await visitor.get('/dashboard/home?from=2027-03-01&to=2027-01-01');
  expect(reversed.status).toBe(400);
  expect(reversed.text).toMatch(/id="home-to"[^>]*aria-invalid="true"/);
  expect(reversed.text).toContain('<p class="field-error" id="home-to-error">La fecha final debe ser igual o posterior a la inicial.</p>');
  expect(reversed.text).not.toContain('<svg class="chart');
  const bad = await visitor.get('/dashboard/home?from=2027-02-30&as_of=ayer');
  expect(bad.status).toBe(400);
  expect(bad.text).toContain('id="home-from-error"');
  expect(bad.text).toContain('id="home-as-of-error"');
  const many = await visitor.get('/dashboard/home?from=2020-01-01&to=2027-01-01&interval=day');
  expect(many.status).toBe(400);
  expect(many.text).toContain('el máximo es 400');
  expect((await visitor.get('/dashboard/home/movements?from=nope')).status).toBe(400);
  expect((await visitor.get('/dashboard/home/movements?type=refund')).status).toBe(400);
});
