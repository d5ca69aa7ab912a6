import request from 'supertest';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { billingSetup } from '../support/billing-fixtures.js';

/** Issue 10 §2: the collection page `{checkout_url}/col/<id>` over HTTP (no browser): forms, CSRF, declines, states, PSE bank page. */
let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await startTestApp();
  key = (await t.account('Gimnasio Andino')).test_key;
});
afterAll(() => t.close());

const api = () => t.as(key);

async function collectCollection() {
  const s = await billingSetup(api());
  const sub = (await api().post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], collection_method: 'collect', days_until_due: 5 })).body;
  return (await api().get(`/v1/collections/${sub.latest_collection}`)).body;
}

const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
const pathOf = (url: string) => new URL(url).pathname;

async function openPage(id: string) {
  const browser = request.agent(t.app.getHttpServer());
  const page = await browser.get(`/checkout/col/${id}`);
  return { browser, page, csrf: csrfOf(page.text) };
}

const card = (number: string) => ({ method: 'card', card_number: number, card_exp: '12/30', card_cvc: '123', card_holder: 'Ana Gómez' });

test('the page shows the merchant, amount, due date and a form with the account methods', async () => {
  const col = await collectCollection();
  expect(pathOf(col.checkout_url)).toBe(`/checkout/col/${col.id}`);
  const { page, csrf } = await openPage(col.id);
  expect(page.status).toBe(200);
  expect(page.headers['content-type']).toMatch(/^text\/html/);
  expect(page.text).toContain('<html lang="es-CO">');
  expect(page.text).toContain('Gimnasio Andino');
  expect(page.text).toContain('$ 49.900');
  expect(page.text).toContain('de 2026'); // the due date, in Spanish
  expect(page.text).toContain('value="card"');
  expect(page.text).toContain('value="pse"');
  expect(page.text).toContain('<label for="card_number">');
  expect(csrf).not.toBe('');
  expect(String(page.headers['set-cookie'])).toMatch(/_csrf=.*HttpOnly.*SameSite=Lax/i);
  const en = await request(t.app.getHttpServer()).get(`/checkout/col/${col.id}?locale=en`);
  expect(en.text).toContain('<html lang="en">');
  expect(en.text).toContain('Amount due');
});

test('a post without the CSRF token, or with a wrong one, is refused with a page and changes nothing', async () => {
  const col = await collectCollection();
  const { browser, csrf } = await openPage(col.id);
  const none = await browser.post(`/checkout/col/${col.id}/pay`).type('form').send(card('4242424242424242'));
  expect(none.status).toBe(403);
  expect(none.text).toContain('Tu sesión expiró');
  const forged = await request(t.app.getHttpServer()).post(`/checkout/col/${col.id}/pay`).type('form').send({ ...card('4242424242424242'), _csrf: csrf });
  expect(forged.status).toBe(403); // the token without its cookie (another site)
  expect((await api().get(`/v1/collections/${col.id}`)).body).toMatchObject({ status: 'pending', collection_attempts: 0 });
});

test('a declined card: back to the page (303), which shows a readable message, never the card number; then an approving card pays', async () => {
  const col = await collectCollection();
  const { browser, csrf } = await openPage(col.id);
  const post = await browser.post(`/checkout/col/${col.id}/pay`).type('form').send({ ...card('4000000000009995'), _csrf: csrf });
  expect([post.status, post.headers.location]).toEqual([303, `/checkout/col/${col.id}`]);
  const declined = await browser.get(post.headers.location);
  expect(declined.text).toContain('no tiene fondos suficientes');
  expect(declined.text).toContain('role="alert"');
  expect(declined.text).not.toContain('4000000000009995');
  expect(declined.text).not.toContain('value="123"');
  const retryToken = csrfOf(declined.text);
  const paid = await browser.post(`/checkout/col/${col.id}/pay`).type('form').send({ ...card('4242 4242 4242 4242'), _csrf: retryToken });
  expect(paid.status).toBe(303);
  expect(paid.headers.location).toBe(`/checkout/col/${col.id}`);
  const after = await browser.get(paid.headers.location);
  expect(after.text).toContain('Pagado');
  expect(after.text).not.toContain('name="_csrf"'); // no form any more
  const charges = (await api().get(`/v1/charges?collection=${col.id}`)).body.data;
  expect(charges.map((c: any) => c.status).sort()).toEqual(['failed', 'succeeded']);
  expect((await api().get(`/v1/collections/${col.id}`)).body).toMatchObject({ status: 'paid', collection_attempts: 2 });
});

test('invalid fields are reported per field without calling the gateway', async () => {
  const col = await collectCollection();
  const { browser, csrf } = await openPage(col.id);
  const first = await browser.post(`/checkout/col/${col.id}/pay`).type('form').send({ method: 'card', card_number: '12', card_exp: '13/30', card_cvc: '1', _csrf: csrf });
  expect(first.status).toBe(303);
  const res = await browser.get(first.headers.location);
  expect(res.text).toContain('Revisa el número de la tarjeta');
  expect(res.text).toContain('aria-invalid="true"');
  const second = await browser.post(`/checkout/col/${col.id}/pay`).type('form').send({ ...card('4242424242424241'), _csrf: csrfOf(res.text) });
  expect(second.status).toBe(303);
  const luhn = await browser.get(second.headers.location);
  expect(luhn.text).toContain('Revisa el número de la tarjeta');
  expect((await api().get(`/v1/collections/${col.id}`)).body.collection_attempts).toBe(0);
});

test('two tabs paying at once end with one charge', async () => {
  const col = await collectCollection();
  const tabA = await openPage(col.id);
  const tabB = await openPage(col.id);
  const [a, b] = await Promise.all([
    tabA.browser.post(`/checkout/col/${col.id}/pay`).type('form').send({ ...card('4242424242424242'), _csrf: tabA.csrf }),
    tabB.browser.post(`/checkout/col/${col.id}/pay`).type('form').send({ ...card('5555555555554444'), _csrf: tabB.csrf }),
  ]);
  expect([a.status, b.status]).toEqual([303, 303]);
  const charges = (await api().get(`/v1/charges?collection=${col.id}`)).body.data;
  expect(charges).toHaveLength(1);
  expect(charges[0].status).toBe('succeeded');
  expect((await api().get(`/v1/collections/${col.id}`)).body).toMatchObject({ status: 'paid', collection_attempts: 1 });
  expect((await tabB.browser.get(`/checkout/col/${col.id}`)).text).toContain('Pagado');
});

test('void and paid collections show their state instead of a form; a post to them pays nothing', async () => {
  const col = await collectCollection();
  expect((await api().post(`/v1/collections/${col.id}/void`)).status).toBe(200);
  const { browser, page } = await openPage(col.id);
  expect(page.text).toContain('Anulado');
  expect(page.text).not.toContain('name="method"');
  const token = csrfOf((await browser.get('/checkout/col/nope')).text) || csrfOf((await browser.get(`/checkout/col/${(await collectCollection()).id}`)).text);
  const post = await browser.post(`/checkout/col/${col.id}/pay`).type('form').send({ ...card('4242424242424242'), _csrf: token });
  expect(post.status).toBe(303);
  expect((await api().get(`/v1/charges?collection=${col.id}`)).body.data).toHaveLength(0);
  const missing = await request(t.app.getHttpServer()).get('/checkout/col/col_doesnotexist');
  expect(missing.status).toBe(404);
  expect(missing.text).toContain('Página no encontrada');
});

test('PSE: the page sends the customer to the simulated bank; approving there pays the collection and returns to the page', async () => {
  const col = await collectCollection();
  const { browser, csrf } = await openPage(col.id);
  const started = await browser.post(`/checkout/col/${col.id}/pay`).type('form').send({ method: 'pse', bank_code: '1007', _csrf: csrf });
  expect(started.status).toBe(303);
  const bankPath = pathOf(started.headers.location);
  expect(bankPath).toMatch(/^\/checkout\/sim\/gateway_a\/pse\/ch_/);
  expect((await api().get(`/v1/collections/${col.id}`)).body.status).toBe('processing');
  const waiting = await browser.get(`/checkout/col/${col.id}`);
  expect(waiting.text).toContain('Pago en proceso');
  expect(waiting.text).toContain(bankPath);
  const bank = await browser.get(bankPath);
  expect(bank.status).toBe(200);
  expect(bank.text).toContain('Bancolombia');
  expect(bank.text).toContain('$ 49.900');
  const approved = await browser.post(bankPath).type('form').send({ decision: 'approve', _csrf: csrfOf(bank.text) });
  expect(approved.status).toBe(303);
  expect(approved.headers.location).toBe(`/checkout/col/${col.id}`);
  expect((await api().get(`/v1/collections/${col.id}`)).body.status).toBe('paid');
  expect((await browser.get(bankPath)).text).toContain('ya fue procesado');
});

test('PSE rejected at the bank: the collection is payable again, exactly as the fail helper leaves it', async () => {
  const col = await collectCollection();
  const { browser, csrf } = await openPage(col.id);
  const started = await browser.post(`/checkout/col/${col.id}/pay`).type('form').send({ method: 'pse', bank_code: '1051', _csrf: csrf });
  const bankPath = pathOf(started.headers.location);
  const bank = await browser.get(bankPath);
  const rejected = await browser.post(bankPath).type('form').send({ decision: 'reject', _csrf: csrfOf(bank.text) });
  expect(rejected.status).toBe(303);
  const after = (await api().get(`/v1/collections/${col.id}`)).body;
  expect(after.status).toBe('pending');
  const charge = (await api().get(`/v1/charges?collection=${col.id}`)).body.data[0];
  expect(charge).toMatchObject({ status: 'failed', failure_code: 'payment_not_completed' });
  expect((await browser.get(`/checkout/col/${col.id}`)).text).toContain('name="method"');
});
