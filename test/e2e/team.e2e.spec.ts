import { jest } from '@jest/globals';
import type { BrowserContext, Page } from 'playwright-core';
import type { EventStore } from '#event-store/event-store.port.js';
import { EVENT_STORE } from '#platform/tokens.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import { InviteFirstOwner } from '#team/application/invite-first-owner.js';
import { totpCodeAt } from '#team/infrastructure/totp.js';
import { billingSetup, card } from '../support/billing-fixtures.js';
import { makeMember } from '../support/dashboard-member.js';
import { outboxFor } from '../support/outbox.js';
import { hasChromium, openBrowser, screenshot, VIEWPORTS } from './support/browser.js';
import { startServer } from './support/server.js';

/**
 * The team as people use it, in real headless Chromium: the first owner signs in with the printed
 * invitation and enrols two-factor sign-in; a support member is invited by e-mail, cancels a
 * subscription (the event names them) and is refused the keys page and a forged key roll; a viewer
 * submits no form successfully; five wrong passwords lock sign-in; a password reset ends the other
 * sessions; a removed member's open session is refused at the next click. Screenshots at phone and
 * laptop sizes go to test-output/e2e/.
 */
const describeWithBrowser = hasChromium() || process.env.CI ? describe : describe.skip;
jest.setTimeout(180_000);

let server: Awaited<ReturnType<typeof startServer>>;
let account: { id: string; test_key: string; live_key: string };
const browsers: Array<{ close: () => Promise<void> }> = [];
beforeAll(async () => {
  if (!hasChromium()) return;
  server = await startServer();
  account = await server.account('Tienda Equipo');
});
afterAll(async () => {
  for (const b of browsers) await b.close();
  await server?.close();
});

async function browser(viewport: { width: number; height: number } = VIEWPORTS.laptop) {
  const b = await openBrowser(viewport);
  browsers.push(b);
  return b;
}
const streamTypes = async (stream: string) => (await server.app.get<EventStore>(EVENT_STORE).readStream(stream)).map((e) => e.type);
async function signIn(page: Page, email: string, password: string) {
  await page.goto(`${server.base}/dashboard`);
  await page.getByLabel('Correo electrónico').fill(email);
  await page.getByLabel('Contraseña').fill(password);
  await page.getByRole('button', { name: 'Ingresar' }).click();
}
/** A POST made by the browser with its own cookies and a CSRF token from a page it can open: what a forged form sends. */
async function forge(context: BrowserContext, page: Page, path: string, form: Record<string, string>) {
  await page.goto(`${server.base}/dashboard/account`);
  const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
  return context.request.post(server.base + path, { form: { _csrf: csrf, ...form }, maxRedirects: 0 });
}

describeWithBrowser('the merchant team', () => {
  const OWNER = 'duena@tienda.co';
  const OWNER_PASSWORD = 'mango river quietly folding';
  const SUPPORT = 'soporte@tienda.co';
  const SUPPORT_PASSWORD = 'paper lantern over hills';
  let owner: { context: BrowserContext; page: Page };
  let support: { context: BrowserContext; page: Page };

  test('the owner signs in with the printed invitation and enrols two-factor sign-in', async () => {
    const invitation = await server.app.get(InviteFirstOwner).run(account.id, null);
    await server.app.get(ProjectionEngine).waitFor(invitation.position);
    owner = await browser(VIEWPORTS.phone);
    const { page } = owner;
    await page.goto(invitation.url.replace(/^http:\/\/localhost:\d+/, server.base));
    await screenshot(page, 'team-invitation-phone');
    await page.getByLabel('Correo electrónico').fill(OWNER);
    await page.locator('#password').fill(OWNER_PASSWORD);
    await page.locator('#password_confirmation').fill(OWNER_PASSWORD);
    await page.getByRole('button', { name: 'Crear contraseña y entrar' }).click();
    await page.waitForURL(/\/dashboard\/home/);
    await page.goto(`${server.base}/dashboard/account/two-factor`);
    const secret = (await page.locator('[data-totp-secret]').textContent())!.replace(/\s/g, '');
    expect(await page.locator('.qr svg').count()).toBe(1);
    await screenshot(page, 'team-two-factor-phone');
    await page.locator('#code').fill(totpCodeAt(secret, server.clock.now()));
    await page.locator('[data-action="confirm-two-factor"]').click();
    expect(await page.locator('[data-recovery-codes] li').count()).toBe(10);
    await screenshot(page, 'team-recovery-codes-phone');
    // Signing in again asks for the code after the password.
    const again = await browser();
    await signIn(again.page, OWNER, OWNER_PASSWORD);
    await again.page.waitForURL(/\/dashboard\/login\/code/);
    await screenshot(again.page, 'team-code-step-laptop');
    server.clock.set(new Date(server.clock.now().getTime() + 60_000)); // the next time step: each code is used once
    await again.page.locator('#code').fill(totpCodeAt(secret, server.clock.now()));
    await again.page.getByRole('button', { name: 'Verificar' }).click();
    await again.page.waitForURL(/\/dashboard\/home/);
  });

  test('the owner invites a support member, who sets a password from the e-mailed link and cancels a subscription as themself', async () => {
    const { page } = owner;
    await page.goto(`${server.base}/dashboard/team`);
    await page.locator('#invite-email').fill(SUPPORT);
    await page.locator('#invite-role').selectOption('support');
    await page.locator('[data-action="invite"]').click();
    await screenshot(page, 'team-page-phone');
    const [mail] = await outboxFor(server, account.test_key, `to=${encodeURIComponent(SUPPORT)}&kind=team.invitation`);
    const link = /http:\/\/\S+\/dashboard\/invitations\/\S+/.exec(mail.text)![0];
    expect(await page.content()).not.toContain(new URL(link).pathname);
    support = await browser();
    await support.page.goto(link.replace(/^http:\/\/localhost:\d+/, server.base));
    await support.page.locator('#password').fill(SUPPORT_PASSWORD);
    await support.page.locator('#password_confirmation').fill(SUPPORT_PASSWORD);
    await support.page.getByRole('button', { name: 'Crear contraseña y entrar' }).click();
    await support.page.waitForURL(/\/dashboard\/subscriptions/);

    const api = server.as(account.test_key);
    const { monthly, customer } = await billingSetup(api);
    const sub = (await api.post('/v1/subscriptions', { customer: customer.id, items: [{ price: monthly.id }], payment_information: card() })).body;
    await support.page.goto(`${server.base}/dashboard/subscriptions/${sub.id}`);
    await support.page.locator('[data-action="cancel"]').click();
    await support.page.waitForURL(/done=cancel/);
    const events = await server.app.get<EventStore>(EVENT_STORE).readStream(`subscription-${sub.id}`);
    // The cancellation's events (scheduled at the period's end: the form's default) are the last ones.
    const canceled = events[events.length - 1];
    expect(canceled.type).toMatch(/^subscription\./);
    const members = await server.app.get<EventStore>(EVENT_STORE).readStream(`team-${account.id}`);
    const supportId = members.find((e) => e.type === 'member.joined' && e.data.email === SUPPORT)!.data.member;
    expect(canceled.metadata.actor).toEqual({ type: 'dashboard', member: supportId });
    expect(await support.page.locator('.timeline').textContent()).toContain(`${SUPPORT} (Soporte)`);
    await screenshot(support.page, 'team-support-timeline-laptop');
  });

  test('support gets the 403 page for the keys, and a forged roll changes nothing', async () => {
    const { page, context } = support;
    const answer = await page.goto(`${server.base}/dashboard/keys`);
    expect(answer!.status()).toBe(403);
    expect(await page.locator('h1').textContent()).toBe('No tienes permiso');
    await screenshot(page, 'team-keys-forbidden-laptop');
    const before = await streamTypes(`account-${account.id}`);
    const keyId = account.test_key.split('_')[2].slice(0, 12);
    const forged = await forge(context, page, `/dashboard/keys/${keyId}/roll`, { expires_in: '0' });
    expect(forged.status()).toBe(403);
    expect(await streamTypes(`account-${account.id}`)).toEqual(before);
    expect((await server.as(account.test_key).get('/v1/products')).status).toBe(200);
  });

  test('a viewer sees the lists, is offered no form, and submits none successfully', async () => {
    const viewer = await makeMember(server, account.id, 'viewer');
    const { page, context } = await browser(VIEWPORTS.phone);
    await signIn(page, viewer.email, viewer.password);
    await page.waitForURL(/\/dashboard\/home/);
    const sub = (await server.as(account.test_key).get('/v1/subscriptions?limit=1')).body.data[0];
    await page.goto(`${server.base}/dashboard/subscriptions/${sub.id}`);
    expect(await page.locator('form[action^="/dashboard/subscriptions/"]').count()).toBe(0);
    await screenshot(page, 'team-viewer-subscription-phone');
    const before = (await server.app.get<EventStore>(EVENT_STORE).readStream(`subscription-${sub.id}`)).length;
    for (const [path, form] of [
      [`/dashboard/subscriptions/${sub.id}/cancel`, { cancel_at: 'now' }],
      ['/dashboard/new/customer', { email: 'x@example.com' }],
      ['/dashboard/team/invite', { email: 'y@example.com', role: 'owner' }],
    ] as const) {
      const res = await forge(context, page, path, form);
      expect(res.status()).toBe(403);
    }
    expect((await server.app.get<EventStore>(EVENT_STORE).readStream(`subscription-${sub.id}`)).length).toBe(before);
  });

  test('five wrong passwords lock sign-in for a while', async () => {
    const { page } = await browser(VIEWPORTS.phone);
    for (let i = 0; i < 5; i++) await signIn(page, SUPPORT, `not the password ${i}`);
    expect(await page.locator('.alert-error').textContent()).toContain('Demasiados intentos fallidos');
    await screenshot(page, 'team-locked-phone');
    await signIn(page, SUPPORT, SUPPORT_PASSWORD);
    expect(await page.locator('.alert-error').textContent()).toContain('Demasiados intentos fallidos');
    server.clock.set(new Date(server.clock.now().getTime() + 16 * 60 * 1000));
  });

  test('a password reset ends the member\'s other sessions; a removed member is refused at the next click', async () => {
    // The support member is signed in in one browser and resets the password from another.
    const first = await browser();
    await signIn(first.page, SUPPORT, SUPPORT_PASSWORD);
    await first.page.waitForURL(/\/dashboard\/subscriptions/);
    const second = await browser(VIEWPORTS.phone);
    await second.page.goto(`${server.base}/dashboard/password/forgot`);
    await second.page.getByLabel('Correo electrónico').fill(SUPPORT);
    await second.page.getByRole('button', { name: 'Enviar enlace' }).click();
    const mails = await outboxFor(server, account.test_key, `to=${encodeURIComponent(SUPPORT)}&kind=team.password_reset`);
    const link = /http:\/\/\S+\/dashboard\/password\/reset\/\S+/.exec(mails[0].text)![0];
    await second.page.goto(link.replace(/^http:\/\/localhost:\d+/, server.base));
    await second.page.locator('#password').fill('winter orchard copper bells');
    await second.page.locator('#password_confirmation').fill('winter orchard copper bells');
    await second.page.getByRole('button', { name: 'Guardar contraseña' }).click();
    expect(await second.page.locator('.alert-success').textContent()).toContain('todas tus sesiones se cerraron');
    await first.page.getByRole('link', { name: 'Clientes' }).first().click();
    await first.page.waitForURL(/\/dashboard$/);

    // The owner removes the support member while they are signed in elsewhere.
    await signIn(first.page, SUPPORT, 'winter orchard copper bells');
    await first.page.waitForURL(/\/dashboard\/subscriptions/);
    const ownerAgain = await browser();
    const secretless = await makeMember(server, account.id, 'admin');
    await signIn(ownerAgain.page, secretless.email, secretless.password);
    await ownerAgain.page.goto(`${server.base}/dashboard/team`);
    const row = ownerAgain.page.locator('tr[data-member-role="support"]');
    await row.locator('[data-action="remove"]').click();
    await ownerAgain.page.waitForURL(/\/dashboard\/team/);
    await first.page.getByRole('link', { name: 'Clientes' }).first().click();
    await first.page.waitForURL(/\/dashboard$/);
    expect(await first.page.locator('h1').textContent()).toBe('Ingresa al panel');

    // The admin's security log tells the story, newest first; their account page lists their sessions.
    await ownerAgain.page.goto(`${server.base}/dashboard/security-log`);
    await screenshot(ownerAgain.page, 'team-security-log-laptop');
    const log = await ownerAgain.page.locator('main').textContent();
    for (const words of [SUPPORT]) expect(log).toContain(words);
    await ownerAgain.page.setViewportSize(VIEWPORTS.phone);
    await ownerAgain.page.goto(`${server.base}/dashboard/account`);
    await screenshot(ownerAgain.page, 'team-account-phone');
  });
});
