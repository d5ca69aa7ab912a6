import { EVENT_STORE, READ_STORE } from '#platform/tokens.js';
import type { EventStore } from '#event-store/event-store.port.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { totpCodeAt } from '#team/infrastructure/totp.js';
import { signInMember } from '../support/dashboard-member.js';
import { outboxFor } from '../support/outbox.js';
import { pageVisitor } from '../support/page-session.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

type Visitor = ReturnType<typeof pageVisitor>;

/** Every page and CSV the tests saw, with what each one may show (the enrolment page its secret, the codes page its codes). */
const seen: { what: string; text: string }[] = [];
const keep = <R extends { text: string }>(what: string, res: R) => {
  seen.push({ what, text: res.text ?? '' });
  return res;
};
const secrets: { what: string; value: string; shownOn?: string }[] = [];

const teamEvents = async (accountId: string) => (await t.app.get<EventStore>(EVENT_STORE).readStream(`team-${accountId}`)).map((e) => e.type);
const memberRow = (html: string, memberId: string) => new RegExp(`<tr data-member-id="${memberId}"[\\s\\S]*?</tr>`).exec(html)?.[0] ?? '';
const logRows = (html: string) =>
  [...html.matchAll(/<tr data-log-type="([a-z_.]+)">([\s\S]*?)<\/tr>/g)].map((m) => ({
    type: m[1],
    text: m[2].replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim(),
    member: /data-log-member>([^<]*)</.exec(m[2])?.[1] ?? '',
    actor: /data-log-actor>([^<]*)</.exec(m[2])?.[1] ?? '',
  }));
const sessionCookie = (v: Visitor) => v.jar.get('dashboard_session') ?? '';
const rememberCookie = (v: Visitor, who: string) => {
  const value = sessionCookie(v);
  secrets.push({ what: `${who}'s session cookie`, value });
  secrets.push({ what: `${who}'s session id`, value: decodeURIComponent(value).split('.')[0] });
};

/** The CSV export as bytes (to see the BOM as sent). */
async function csvOf(v: Visitor, path = '/dashboard/security-log.csv') {
  const cookie = [...v.jar].map(([k, val]) => `${k}=${val}`).join('; ');
  return t
    .http()
    .get(path)
    .set('Cookie', cookie)
    .buffer(true)
    .parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done(null, Buffer.concat(chunks)));
    });
}

test('an owner invites a support member: the invitation is e-mailed, the page says so and never shows the link', async () => {
  const account = await t.account('Tienda Equipo');
  const owner = await signInMember(t, account.id, 'owner');
  secrets.push({ what: 'owner password', value: owner.password });
  rememberCookie(owner.visitor, 'owner');
  const page = keep('team', await owner.visitor.get('/dashboard/team'));
  expect(page.status).toBe(200);
  expect(page.text).toContain(owner.email);
  expect(page.text).toContain('action="/dashboard/team/invite"');
  // An owner may give every role, owner included.
  expect(page.text).toMatch(/<select id="invite-role"[^>]*>[\s\S]*value="owner"/);

  const invited = await owner.visitor.post('/dashboard/team/invite', { email: 'Ana.Soporte@example.com', role: 'support' });
  expect(invited.status).toBe(303);
  expect(invited.headers.location).toBe('/dashboard/team?done=invited');
  const after = keep('team after invite', await owner.visitor.get(invited.headers.location));
  expect(after.text).toContain('Invitación enviada por correo');
  const row = /<tr data-invitation-member="(mem_[A-Za-z0-9]+)">([\s\S]*?)<\/tr>/.exec(after.text)!;
  expect(row[2]).toContain('ana.soporte@example.com');
  expect(row[2]).toContain('Soporte');

  const [mail] = await outboxFor(t, account.test_key, `to=${encodeURIComponent('ana.soporte@example.com')}&kind=team.invitation`);
  const link = /\/invitations\/(\S+)/.exec(mail.text)![1];
  secrets.push({ what: 'invitation token', value: link });
  secrets.push({ what: 'invitation secret', value: link.split('.').pop()! });
  expect(after.text).not.toContain('/invitations/');

  // The same e-mail again: refused on the page, in its language, with the conflict's status.
  const again = keep('team invite twice', await owner.visitor.post('/dashboard/team/invite', { email: 'ana.soporte@example.com', role: 'viewer', locale: 'en' }));
  expect(again.status).toBe(409);
  expect(again.text).toContain('already a member of this account or has a pending invitation');

  // Revoking the invitation: its link stops working.
  const revoked = await owner.visitor.post(`/dashboard/team/${row[1]}/revoke`, { locale: 'es' });
  expect(revoked.status).toBe(303);
  expect((await t.http().get(`/dashboard/invitations/${link}`)).status).toBe(410);

  // An admin may not give the owner role: the select does not offer it.
  const admin = await signInMember(t, account.id, 'admin');
  const adminPage = keep('team as admin', await admin.visitor.get('/dashboard/team'));
  expect(adminPage.text).toMatch(/<select id="invite-role"/);
  expect(/<select id="invite-role"[^>]*>([\s\S]*?)<\/select>/.exec(adminPage.text)![1]).not.toContain('value="owner"');
});

test('a support member sees the team but a forged invitation is the 403 page and writes nothing', async () => {
  const account = await t.account('Tienda Soporte');
  await signInMember(t, account.id, 'owner');
  const support = await signInMember(t, account.id, 'support');
  const page = keep('team as support', await support.visitor.get('/dashboard/team'));
  expect(page.status).toBe(200);
  expect(page.text).not.toContain('action="/dashboard/team/invite"');
  expect(page.text).not.toContain('data-action="remove"');
  const before = await teamEvents(account.id);
  const forged = await support.visitor.post('/dashboard/team/invite', { email: 'intruso@example.com', role: 'admin' });
  expect(forged.status).toBe(403);
  expect(forged.text).toContain('No tienes permiso');
  const after = await teamEvents(account.id);
  expect(after).toEqual(before);
  expect(after.filter((e) => e === 'member.invited')).toHaveLength(2);
  // Nor may support open the security log or export it.
  expect((await support.visitor.get('/dashboard/security-log')).status).toBe(403);
  expect((await csvOf(support.visitor)).status).toBe(403);
});

test('changing a member\'s role ends their open session; the last owner cannot be removed nor an owner touched by an admin', async () => {
  const account = await t.account('Tienda Roles');
  const owner = await signInMember(t, account.id, 'owner');
  const dev = await signInMember(t, account.id, 'developer');
  secrets.push({ what: 'developer password', value: dev.password });
  rememberCookie(dev.visitor, 'developer');
  expect((await dev.visitor.get('/dashboard/subscriptions')).status).toBe(200);

  const changed = await owner.visitor.post(`/dashboard/team/${dev.memberId}/role`, { role: 'viewer' });
  expect(changed.status).toBe(303);
  expect(changed.headers.location).toBe('/dashboard/team?done=role_changed');
  const page = keep('team after role change', await owner.visitor.get(changed.headers.location));
  expect(memberRow(page.text, dev.memberId)).toContain('Solo lectura');
  // The developer's session ended at once: their next click is the sign-in page.
  const next = await dev.visitor.get('/dashboard/subscriptions');
  expect(next.status).toBe(303);
  expect(next.headers.location).toBe('/dashboard');

  const admin = await signInMember(t, account.id, 'admin');
  // The only owner cannot remove themself: the page says why, nothing changes.
  const before = await teamEvents(account.id);
  const last = keep('team last owner', await owner.visitor.post(`/dashboard/team/${owner.memberId}/remove`, {}));
  expect(last.status).toBe(409);
  expect(last.text).toContain('al menos un propietario activo');
  expect(await teamEvents(account.id)).toEqual(before);

  // An admin cannot disable an owner (and is offered no button for it).
  const adminPage = await admin.visitor.get('/dashboard/team');
  expect(memberRow(adminPage.text, owner.memberId)).not.toContain('data-action');
  const refused = await admin.visitor.post(`/dashboard/team/${owner.memberId}/disable`, {});
  expect(refused.status).toBe(403);
  expect(refused.text).toContain('Tu rol no permite');
  expect(await teamEvents(account.id)).toEqual(before);

  // Disable, enable, remove a member the admin may change.
  expect((await admin.visitor.post(`/dashboard/team/${dev.memberId}/disable`, {})).headers.location).toBe('/dashboard/team?done=disabled');
  expect(memberRow((await admin.visitor.get('/dashboard/team')).text, dev.memberId)).toContain('data-member-status="disabled"');
  expect((await admin.visitor.post(`/dashboard/team/${dev.memberId}/enable`, {})).headers.location).toBe('/dashboard/team?done=enabled');
  expect((await admin.visitor.post(`/dashboard/team/${dev.memberId}/remove`, {})).headers.location).toBe('/dashboard/team?done=removed');
  expect(memberRow((await admin.visitor.get('/dashboard/team')).text, dev.memberId)).toBe('');

  // Ownership transferred to the admin: the old owner is an admin, still signed in in this browser.
  const transferred = await owner.visitor.post('/dashboard/team/transfer', { member: admin.memberId });
  expect(transferred.status).toBe(303);
  const now = await owner.visitor.get(transferred.headers.location);
  expect(now.status).toBe(200);
  expect(now.text).toContain('<span class="who" data-member-role="admin"');
  expect(memberRow(now.text, admin.memberId)).toContain('data-member-role="owner"');
  // The admin-now-owner's own session ended with the role change.
  expect((await admin.visitor.get('/dashboard/team')).status).toBe(303);
});

let enrolled: { accountId: string; email: string; password: string; owner: Visitor; ownerEmail: string };

test('two-factor enrolment with a code from the secret on the page shows ten recovery codes once; signing in again asks for the code', async () => {
  const account = await t.account('Tienda Dos Pasos');
  const owner = await signInMember(t, account.id, 'owner');
  const member = await signInMember(t, account.id, 'developer');
  secrets.push({ what: 'enrolled member password', value: member.password });
  const account0 = keep('account', await member.visitor.get('/dashboard/account'));
  expect(account0.text).toContain('data-two-factor="off"');

  const enrol = keep('enrolment', await member.visitor.get('/dashboard/account/two-factor'));
  expect(enrol.status).toBe(200);
  expect(enrol.text).toMatch(/<div class="qr"><svg role="img" aria-label="Código QR/);
  const secret = /data-totp-secret>([^<]+)</.exec(enrol.text)![1].replace(/\s/g, '');
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  secrets.push({ what: 'TOTP secret', value: secret, shownOn: 'enrolment' });
  secrets.push({ what: 'TOTP secret as shown', value: /data-totp-secret>([^<]+)</.exec(enrol.text)![1], shownOn: 'enrolment' });
  // A reload shows the same pending secret (not a new one each time).
  expect((await member.visitor.get('/dashboard/account/two-factor')).text).toContain(/data-totp-secret>([^<]+)</.exec(enrol.text)![1]);

  const wrong = await member.visitor.post('/dashboard/account/two-factor', { code: '000000' === totpCodeAt(secret, t.clock.now()) ? '111111' : '000000' });
  expect(wrong.status).toBe(400);
  expect(wrong.text).toContain('Ese código no es válido');

  const confirmed = keep('codes', await member.visitor.post('/dashboard/account/two-factor', { code: totpCodeAt(secret, t.clock.now()) }));
  expect(confirmed.status).toBe(200);
  expect(confirmed.headers['cache-control']).toContain('no-store');
  const codes = [.../<ol class="codes" data-recovery-codes>([\s\S]*?)<\/ol>/.exec(confirmed.text)![1].matchAll(/<code>([^<]+)<\/code>/g)].map((m) => m[1]);
  expect(codes).toHaveLength(10);
  expect(new Set(codes).size).toBe(10);
  for (const c of codes) secrets.push({ what: 'recovery code', value: c, shownOn: 'codes' });
  expect(confirmed.text).not.toContain(secret);

  const account1 = keep('account after enrolment', await member.visitor.get('/dashboard/account?done=two_factor_enabled'));
  expect(account1.text).toContain('data-two-factor="on"');
  expect(account1.text).toContain('La verificación en dos pasos está activada');
  // The team page says so too.
  expect(memberRow(keep('team', await owner.visitor.get('/dashboard/team')).text, member.memberId)).toContain('data-two-factor="on"');

  // Another browser: password, then the code.
  t.clock.set(new Date(t.clock.now().getTime() + 30_000));
  const other = pageVisitor(t);
  await other.get('/dashboard');
  const first = await other.post('/dashboard/login', { email: member.email, password: member.password });
  expect(first.status).toBe(303);
  expect(first.headers.location).toBe('/dashboard/login/code');
  const second = await other.post('/dashboard/login/code', { code: totpCodeAt(secret, t.clock.now()) });
  expect(second.status).toBe(303);
  expect(second.headers.location).toBe('/dashboard/subscriptions'); // a developer may not read reports
  expect((await other.get('/dashboard/account')).status).toBe(200);
  rememberCookie(other, 'enrolled member');

  // Turning it off needs the current password.
  const refused = keep('account wrong password', await other.post('/dashboard/account/two-factor/disable', { current_password: 'not my password at all' }));
  expect(refused.status).toBe(400);
  expect(refused.text).toContain('La contraseña actual no es correcta');
  expect(refused.text).toContain('data-two-factor="on"');
  enrolled = { accountId: account.id, email: member.email, password: member.password, owner: owner.visitor, ownerEmail: owner.email };
});

test('ending all other sessions signs the other browser out; a changed password keeps this browser signed in', async () => {
  const account = await t.account('Tienda Sesiones');
  const member = await signInMember(t, account.id, 'analyst');
  const other = pageVisitor(t);
  await other.get('/dashboard');
  expect((await other.post('/dashboard/login', { email: member.email, password: member.password })).status).toBe(303);
  expect((await other.get('/dashboard/subscriptions')).status).toBe(200);
  rememberCookie(member.visitor, 'analyst');
  rememberCookie(other, 'analyst (other browser)');

  const page = keep('account sessions', await member.visitor.get('/dashboard/account'));
  expect(page.text.match(/<tr data-session/g)).toHaveLength(2);
  expect(page.text.match(/data-current-session/g)).toHaveLength(1);
  const ended = await member.visitor.post('/dashboard/account/sessions/end-others', {});
  expect(ended.status).toBe(303);
  expect(ended.headers.location).toBe('/dashboard/account?done=others_ended');
  expect((await other.get('/dashboard/subscriptions')).status).toBe(303);
  const after = keep('account after ending', await member.visitor.get(ended.headers.location));
  expect(after.status).toBe(200);
  expect(after.text.match(/<tr data-session/g)).toHaveLength(1);

  // Password change: wrong current password, then a mismatch, then done — this browser stays signed in.
  const wrong = keep('password wrong', await member.visitor.post('/dashboard/account/password', { current_password: 'nope', password: 'bright harbor quietly 77 lanterns', password_confirmation: 'bright harbor quietly 77 lanterns' }));
  expect(wrong.status).toBe(400);
  expect(wrong.text).toContain('La contraseña actual no es correcta');
  const mismatch = await member.visitor.post('/dashboard/account/password', { current_password: member.password, password: 'bright harbor quietly 77 lanterns', password_confirmation: 'other' });
  expect(mismatch.status).toBe(400);
  expect(mismatch.text).toContain('no coinciden');
  const fresh = 'bright harbor quietly 77 lanterns';
  secrets.push({ what: 'new password', value: fresh });
  expect((await other.post('/dashboard/login', { email: member.email, password: member.password })).status).toBe(303);
  const changed = await member.visitor.post('/dashboard/account/password', { current_password: member.password, password: fresh, password_confirmation: fresh });
  expect(changed.status).toBe(303);
  expect(changed.headers.location).toBe('/dashboard/account?done=password_changed');
  expect((await member.visitor.get(changed.headers.location)).status).toBe(200);
  expect((await other.get('/dashboard/subscriptions')).status).toBe(303);
  const again = pageVisitor(t);
  await again.get('/dashboard');
  expect((await again.post('/dashboard/login', { email: member.email, password: fresh })).status).toBe(303);
});

test('the security log lists a failed sign-in and the role change with who did it, in both languages; the CSV has a BOM and a line per entry', async () => {
  const account = await t.account('Tienda Registro');
  const owner = await signInMember(t, account.id, 'owner');
  const dev = await signInMember(t, account.id, 'developer');
  const stranger = pageVisitor(t);
  await stranger.get('/dashboard');
  expect((await stranger.post('/dashboard/login', { email: dev.email, password: 'wrong password entirely' })).status).toBe(401);
  expect((await owner.visitor.post(`/dashboard/team/${dev.memberId}/role`, { role: 'analyst' })).status).toBe(303);

  const page = keep('security log', await owner.visitor.get('/dashboard/security-log'));
  expect(page.status).toBe(200);
  const rows = logRows(page.text);
  expect(rows[0]).toMatchObject({ type: 'member.role_changed', member: dev.email, actor: owner.email });
  expect(rows[0].text).toContain('Rol cambiado de Desarrollador a Analista');
  const failed = rows.find((r) => r.type === 'security.sign_in_failed')!;
  expect(failed).toMatchObject({ member: dev.email });
  expect(failed.text).toContain('Ingreso fallido: contraseña incorrecta');
  expect(rows.filter((r) => r.type === 'member.invited').every((r) => r.actor === 'CLI o el servicio')).toBe(true);
  const en = keep('security log en', await owner.visitor.get('/dashboard/security-log?locale=en'));
  expect(logRows(en.text)[0].text).toContain('Role changed from Developer to Analyst');
  expect(en.text).toContain('Failed sign-in: wrong password');

  const stored = await t.app.get<ReadStore>(READ_STORE).find('security_log', { where: { account_id: account.id }, orderBy: { field: '_position', direction: 'desc' }, limit: 1000 });
  expect(stored.length).toBeGreaterThan(5);
  expect(rows).toHaveLength(stored.length);

  // The page's language (remembered: English since ?locale=en above; asked back to Spanish here).
  const csv = await csvOf(owner.visitor, '/dashboard/security-log.csv?locale=es');
  expect(csv.status).toBe(200);
  expect(csv.headers['content-type']).toMatch(/^text\/csv; charset=utf-8/);
  expect(csv.headers['content-disposition']).toMatch(/^attachment; filename="security-log-\d{4}-\d{2}-\d{2}\.csv"$/);
  const bytes = csv.body as Buffer;
  expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  const text = bytes.toString('utf8').slice(1);
  keep('security log csv (en)', { text });
  const lines = text.split('\r\n').filter((l) => l !== '');
  expect(lines).toHaveLength(stored.length + 1);
  expect(lines[0]).toBe('Fecha (UTC);Fecha;Evento;Qué pasó;Miembro;Quién lo hizo;Dirección IP');
  expect(lines[1]).toContain(';member.role_changed;Rol cambiado de Desarrollador a Analista;');
  expect(lines[1]).toContain(`;${dev.email};${owner.email};`);
  const enCsv = await csvOf(owner.visitor, '/dashboard/security-log.csv?locale=en');
  expect((enCsv.body as Buffer).toString('utf8').split('\r\n')[0]).toBe('\uFEFFTimestamp (UTC),Time,Event,What happened,Member,Done by,IP address');
  keep('security log csv (en)', { text: (enCsv.body as Buffer).toString('utf8') });

  // An analyst may export lists but not read the security log; a developer neither.
  expect((await csvOf(dev.visitor)).status).toBe(303); // signed out by the role change
  const analyst = await signInMember(t, account.id, 'analyst');
  expect((await csvOf(analyst.visitor)).status).toBe(403);
});

test('the security log pages newest first with a keyset link', async () => {
  const account = await t.account('Tienda Paginas');
  const owner = await signInMember(t, account.id, 'owner');
  // 55+ lines: invitations of the owner, the members and their sign-ins, then sessions ended.
  for (let i = 0; i < 20; i++) await signInMember(t, account.id, 'viewer');
  const first = await owner.visitor.get('/dashboard/security-log');
  const rows1 = logRows(first.text);
  expect(rows1).toHaveLength(50);
  const next = /<a href="([^"]+)" rel="next">/.exec(first.text)![1].replace(/&amp;/g, '&');
  const second = await owner.visitor.get(next);
  const rows2 = logRows(second.text);
  const stored = await t.app.get<ReadStore>(READ_STORE).find('security_log', { where: { account_id: account.id }, orderBy: { field: '_position', direction: 'desc' }, limit: 1000 });
  expect(rows1.length + rows2.length).toBe(Math.min(stored.length, 100));
  expect(rows2[0].type).toBe((stored[50] as { type: string }).type);
});

test('an admin requires two-factor sign-in: a member without it may only enrol, then uses the dashboard; they cannot turn it off', async () => {
  const account = await t.account('Tienda Obligatoria');
  const admin = await signInMember(t, account.id, 'admin');
  const member = await signInMember(t, account.id, 'support');
  const on = await admin.visitor.post('/dashboard/team/two-factor', { required: 'true' });
  expect(on.headers.location).toBe('/dashboard/team?done=two_factor_required');
  expect((await admin.visitor.get(on.headers.location)).text).toContain('data-require-two-factor="on"');
  // A support member may not change the setting.
  expect((await member.visitor.post('/dashboard/team/two-factor', { required: 'false' })).status).toBe(403);

  const browser = pageVisitor(t);
  await browser.get('/dashboard');
  const signedIn = await browser.post('/dashboard/login', { email: member.email, password: member.password });
  expect(signedIn.headers.location).toBe('/dashboard/account/two-factor');
  expect((await browser.get('/dashboard/subscriptions')).headers.location).toBe('/dashboard/account/two-factor');
  expect((await browser.get('/dashboard/team')).headers.location).toBe('/dashboard/account/two-factor');
  const enrol = keep('enrolment', await browser.get('/dashboard/account/two-factor'));
  const secret = /data-totp-secret>([^<]+)</.exec(enrol.text)![1].replace(/\s/g, '');
  secrets.push({ what: 'TOTP secret (required)', value: secret, shownOn: 'enrolment' });
  const codes = keep('codes', await browser.post('/dashboard/account/two-factor', { code: totpCodeAt(secret, t.clock.now()) }));
  expect(codes.status).toBe(200);
  for (const c of [...codes.text.matchAll(/<li><code>([^<]+)<\/code><\/li>/g)].map((m) => m[1])) secrets.push({ what: 'recovery code (required)', value: c, shownOn: 'codes' });
  expect((await browser.get('/dashboard/subscriptions')).status).toBe(200);
  const account1 = keep('account (required)', await browser.get('/dashboard/account'));
  expect(account1.text).toContain('exige la verificación en dos pasos a todos sus miembros');
  expect(account1.text).not.toContain('action="/dashboard/account/two-factor/disable"');
  // A forged post to turn it off: refused by the decider, shown on the page.
  const forged = keep('account disable refused', await browser.post('/dashboard/account/two-factor/disable', { current_password: member.password }));
  expect(forged.status).toBe(409);
  expect(forged.text).toContain('no se puede desactivar');
  expect(forged.text).toContain('data-two-factor="on"');
});

test('no page nor CSV shows a password, a TOTP secret, a recovery code, a link token or a session cookie, except the page that shows it once', async () => {
  // The pages of the enrolled member's account, the team and the log, once more after everything.
  const owner = enrolled.owner;
  keep('team at the end', await owner.get('/dashboard/team'));
  keep('log at the end', await owner.get('/dashboard/security-log'));
  keep('log csv at the end', { text: ((await csvOf(owner)).body as Buffer).toString('utf8') });
  expect(seen.length).toBeGreaterThan(15);
  // The check can fail: the pages that show a secret once do show it.
  expect(seen.some((p) => p.what === 'enrolment' && secrets.some((s) => s.shownOn === 'enrolment' && p.text.replace(/\s/g, '').includes(s.value)))).toBe(true);
  expect(seen.some((p) => p.what === 'codes' && secrets.some((s) => s.shownOn === 'codes' && p.text.includes(s.value)))).toBe(true);
  expect(secrets.length).toBeGreaterThan(20);
  for (const s of secrets) {
    expect(s.value.length).toBeGreaterThan(8);
    for (const page of seen) {
      if (page.what !== s.shownOn && page.text.includes(s.value)) throw new Error(`${s.what} appears on ${page.what}`);
    }
  }
});
