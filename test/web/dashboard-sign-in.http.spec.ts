import { CommandBus } from '@nestjs/cqrs';
import { EVENT_STORE, READ_STORE } from '#platform/tokens.js';
import type { EventStore } from '#event-store/event-store.port.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import { InviteFirstOwner } from '#team/application/invite-first-owner.js';
import { type Invitation, InviteMemberCommand } from '#team/application/invite-member.js';
import { RemoveMemberCommand } from '#team/application/remove-member.js';
import { totpCodeAt } from '#team/infrastructure/totp.js';
import { outboxFor } from '../support/outbox.js';
import { pageVisitor } from '../support/page-session.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let account: { id: string; test_key: string; live_key: string };
const OWNER = 'dueña@example.com';
const OWNER_PASSWORD = 'orbit velvet canyon pickle';
beforeAll(async () => {
  t = await startTestApp();
  account = await t.account('Tienda Sign-in');
});
afterAll(() => t.close());

const tokenOf = (url: string) => url.split('/').pop()!;
const invite = async (email: string | null, role: 'owner' | 'support' | 'viewer' = 'support') => {
  const invitation = await t.app.get(CommandBus).execute<InviteMemberCommand, Invitation>(new InviteMemberCommand({ accountId: account.id, member: null, address: null }, email, role));
  await t.app.get(ProjectionEngine).waitFor(invitation.position);
  return invitation;
};
/** Accepts an invitation in a fresh browser and returns it, signed in. */
async function accept(invitation: Invitation, password: string, email?: string) {
  const v = pageVisitor(t);
  const page = await v.get(`/dashboard/invitations/${tokenOf(invitation.url)}`);
  expect(page.status).toBe(200);
  const res = await v.post(`/dashboard/invitations/${tokenOf(invitation.url)}`, { ...(email ? { email } : {}), password, password_confirmation: password });
  expect(res.status).toBe(303);
  return v;
}
async function signIn(email: string, password: string) {
  const v = pageVisitor(t);
  await v.get('/dashboard');
  return { v, res: await v.post('/dashboard/login', { email, password }) };
}
const events = async (stream: string) => (await t.app.get<EventStore>(EVENT_STORE).readStream(stream)).map((e) => e);

let ownerBrowser: ReturnType<typeof pageVisitor>;

test('the first owner accepts the printed invitation (giving an e-mail), is signed in, and the link works once', async () => {
  const invitation = await t.app.get(InviteFirstOwner).run(account.id, null);
  await t.app.get(ProjectionEngine).waitFor(invitation.position);
  const weak = pageVisitor(t);
  await weak.get(`/dashboard/invitations/${tokenOf(invitation.url)}`);
  const refused = await weak.post(`/dashboard/invitations/${tokenOf(invitation.url)}`, { email: OWNER, password: 'Password1234', password_confirmation: 'Password1234' });
  expect(refused.status).toBe(400);
  expect(refused.text).toContain('demasiado común');
  ownerBrowser = await accept(invitation, OWNER_PASSWORD, OWNER);
  const home = await ownerBrowser.get('/dashboard/subscriptions');
  expect(home.status).toBe(200);
  expect(home.text).toContain(OWNER);
  // Single use: the same link now says it no longer works (and signs nobody in).
  const again = await pageVisitor(t).get(`/dashboard/invitations/${tokenOf(invitation.url)}`);
  expect(again.status).toBe(410);
  expect(again.text).toContain('Este enlace ya no sirve');
  const joined = (await events(`team-${account.id}`)).find((e) => e.type === 'member.joined')!;
  expect(joined.data).toMatchObject({ email: OWNER, role: 'owner' });
});

test('an unknown e-mail and a wrong password get the same answer; five failures lock sign-in until the lock ends by itself', async () => {
  const unknown = await signIn('nadie@example.com', OWNER_PASSWORD);
  const wrong = await signIn(OWNER, 'wrong password here');
  expect(unknown.res.status).toBe(401);
  expect(wrong.res.status).toBe(401);
  const message = (html: string) => /<p class="alert alert-error"[^>]*>([^<]*)</.exec(html)?.[1];
  expect(message(unknown.res.text)).toBe(message(wrong.res.text));
  for (let i = 0; i < 3; i++) await signIn(OWNER, `wrong password ${i}`);
  const locked = await signIn(OWNER, 'wrong password 4');
  expect(locked.res.status).toBe(429);
  // Even the right password waits for the lock to end.
  const right = await signIn(OWNER, OWNER_PASSWORD);
  expect(right.res.status).toBe(429);
  expect(right.res.text).toContain('Demasiados intentos fallidos');
  t.clock.set(new Date(t.clock.now().getTime() + 16 * 60 * 1000));
  const after = await signIn(OWNER, OWNER_PASSWORD);
  expect(after.res.status).toBe(303);
  const types = (await events(`security-${account.id}`)).map((e) => e.type);
  expect(types).toEqual(expect.arrayContaining(['security.sign_in_failed', 'security.sign_in_locked', 'security.sign_in_succeeded']));
  // The unknown e-mail's attempt is recorded, but in no account's log.
  expect((await events('security-unattributed')).some((e) => e.data.email === 'nadie@example.com')).toBe(true);
});

test('ten guesses sent at once for one e-mail: at most five are tried, the rest find it locked', async () => {
  const v = pageVisitor(t);
  await v.get('/dashboard');
  const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => v.post('/dashboard/login', { email: 'burst@example.com', password: `guess number ${i}` })));
  const statuses = answers.map((a) => a.status);
  expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(4);
  expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(6);
  t.clock.set(new Date(t.clock.now().getTime() + 16 * 60 * 1000));
});

test('a password reset is e-mailed as a single-use link; using it ends every other session of the member', async () => {
  const other = (await signIn(OWNER, OWNER_PASSWORD)).v;
  expect((await other.get('/dashboard/subscriptions')).status).toBe(200);
  const forgot = pageVisitor(t);
  await forgot.get('/dashboard/password/forgot');
  const sent = await forgot.post('/dashboard/password/forgot', { email: OWNER.toUpperCase() });
  expect(sent.status).toBe(200);
  const unknownSent = await forgot.post('/dashboard/password/forgot', { email: 'nadie@example.com' });
  expect(unknownSent.text).toContain('Si ese correo es de un miembro activo');
  const [mail] = await outboxFor(t, account.test_key, `to=${encodeURIComponent(OWNER)}&kind=team.password_reset`);
  const link = /http:\/\/\S+\/dashboard\/password\/reset\/\S+/.exec(mail.text)![0];
  const path = new URL(link).pathname;
  const reset = pageVisitor(t);
  await reset.get(path);
  const done = await reset.post(path, { password: 'lantern harbor quiet meadow', password_confirmation: 'lantern harbor quiet meadow' });
  expect(done.status).toBe(200);
  expect(done.text).toContain('todas tus sesiones se cerraron');
  expect((await other.get('/dashboard/subscriptions')).status).toBe(303);
  expect((await ownerBrowser.get('/dashboard/subscriptions')).status).toBe(303);
  expect((await reset.get(path)).status).toBe(410);
  expect((await signIn(OWNER, OWNER_PASSWORD)).res.status).toBe(401);
  ownerBrowser = (await signIn(OWNER, 'lantern harbor quiet meadow')).v;
  expect((await ownerBrowser.get('/dashboard/subscriptions')).status).toBe(200);
});

test('with two factors the code comes after the password; a removed member is refused at their next click', async () => {
  const invitation = await invite('soporte@example.com', 'support');
  const support = await accept(invitation, 'copper kettle winter garden');
  // Enrol: the secret shown on the enrolment page gives the codes.
  const enrol = await support.get('/dashboard/account/two-factor');
  expect(enrol.status).toBe(200);
  const secret = /data-totp-secret>([A-Z2-7 ]+)</.exec(enrol.text)?.[1].replace(/ /g, '');
  expect(secret).toBeDefined();
  const confirmed = await support.post('/dashboard/account/two-factor', { code: totpCodeAt(secret!, t.clock.now()) });
  expect(confirmed.status).toBe(200);
  const codes = [...confirmed.text.matchAll(/<li><code>([a-z0-9-]+)<\/code><\/li>/g)].map((m) => m[1]);
  expect(codes).toHaveLength(10);
  const { v, res } = await signIn('soporte@example.com', 'copper kettle winter garden');
  expect(res.headers.location).toBe('/dashboard/login/code');
  expect((await v.get('/dashboard/subscriptions')).status).toBe(303); // not signed in before the code
  await v.get('/dashboard/login/code');
  expect((await v.post('/dashboard/login/code', { code: '000000' })).status).toBe(401);
  const recovered = await v.post('/dashboard/login/code', { code: codes[0].toUpperCase() });
  expect(recovered.status).toBe(303);
  expect((await v.get('/dashboard/subscriptions')).status).toBe(200);
  // A recovery code works once.
  const second = (await signIn('soporte@example.com', 'copper kettle winter garden')).v;
  await second.get('/dashboard/login/code');
  expect((await second.post('/dashboard/login/code', { code: codes[0] })).status).toBe(401);

  const member = invitation.member;
  const removed = await t.app.get(CommandBus).execute(new RemoveMemberCommand({ accountId: account.id, member: null, address: null }, member));
  await t.app.get(ProjectionEngine).waitFor(removed.position);
  expect((await v.get('/dashboard/subscriptions')).status).toBe(303);
  expect((await signIn('soporte@example.com', 'copper kettle winter garden')).res.status).toBe(401);
});

test('no password, secret, code or session id is in any event, log line or read model of the team', async () => {
  const store = t.app.get<EventStore>(EVENT_STORE);
  const all = JSON.stringify(await store.readStream(`team-${account.id}`)) + JSON.stringify(await store.readStream(`security-${account.id}`));
  const logs = JSON.stringify(t.logs);
  const members = JSON.stringify(await t.app.get<ReadStore>(READ_STORE).find('members', { where: { account_id: account.id }, orderBy: { field: 'invited_at', direction: 'asc' }, limit: 50 }));
  for (const secret of [OWNER_PASSWORD, 'lantern harbor quiet meadow', 'copper kettle winter garden', '$argon2id$', ownerBrowser.jar.get('dashboard_session')!.split('.')[0]]) {
    expect(all).not.toContain(secret);
    expect(logs).not.toContain(secret);
    expect(members).not.toContain(secret);
  }
});
