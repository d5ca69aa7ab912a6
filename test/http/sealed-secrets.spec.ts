import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { secretsRewrap } from '#cli/secrets-rewrap.js';
import { loadConfig } from '#platform/config.js';
import { SEALED_SECRETS, SecretVault } from '#platform/sealing.module.js';
import { READ_STORE } from '#platform/tokens.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { masterKeyId, type SealedSecret, SecretSealer } from '#shared/sealing.js';
import { createPrivateKey } from 'node:crypto';
import { totpCodeAt } from '#team/infrastructure/totp.js';
import { signInMember } from '../support/dashboard-member.js';
import { pageVisitor } from '../support/page-session.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * Secrets sealed at rest (issue 32 §3), on the embedded stores (their files are what is searched):
 * a copy of DATA_DIR alone holds no secret, in any form; `secrets rewrap` moves every sealed secret
 * to a new master key while the service runs, after which the old key can go; and without its
 * master key the service does not start.
 */
const WEBHOOKS = { WEBHOOK_POLL_MS: '50', WEBHOOK_TIMEOUT_MS: '3000' };
const T0 = new Date('2026-11-23T10:00:00.000Z');

let dataDir: string;
let receiver: WebhookReceiver;
const secrets: { webhook: string; totp: string; pagesKey: string; email: string; password: string; endpoint: string; key: string; auditKey: string; auditKeyId: string } = {} as never;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'sealed-'));
  receiver = await new WebhookReceiver().up();
});
afterAll(async () => {
  await receiver.close();
});

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** Every row of every table of every SQLite file under `dir`, as JSON text. */
function rowsUnder(dir: string): string {
  const out: string[] = [];
  for (const file of filesUnder(dir).filter((f) => f.endsWith('.sqlite'))) {
    const db = new Database(file, { readonly: true });
    try {
      for (const { name } of db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>) {
        for (const row of db.prepare(`SELECT * FROM "${name}"`).all()) out.push(JSON.stringify(row, (_k, v) => (Buffer.isBuffer(v) ? v.toString('latin1') : v)));
      }
    } finally {
      db.close();
    }
  }
  return out.join('\n');
}

/** The forms a secret could be stored in: its text, and its raw bytes (base64-, base32- or hex-decoded), as text and base64. */
function formsOf(secret: string): Buffer[] {
  const forms = [Buffer.from(secret, 'utf8')];
  const b64 = secret.replace(/^whsec_/, '');
  if (/^[A-Za-z0-9+/]+=*$/.test(b64)) {
    const raw = Buffer.from(b64, 'base64');
    if (raw.length >= 16) forms.push(raw, Buffer.from(raw.toString('hex')), Buffer.from(b64));
  }
  if (/^[A-Z2-7]+=*$/.test(secret)) {
    let bits = '';
    for (const c of secret.replace(/=+$/, '')) bits += 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'.indexOf(c).toString(2).padStart(5, '0');
    const raw = Buffer.from(bits.match(/.{8}/g)!.map((b) => parseInt(b, 2)));
    forms.push(raw, Buffer.from(raw.toString('base64')), Buffer.from(raw.toString('hex')));
  }
  return forms;
}

async function sendTestEvent(t: TestApp): Promise<void> {
  const before = receiver.received.length;
  const res = await t.as(secrets.key).post(`/v1/test_helpers/webhook_endpoints/${secrets.endpoint}/send_test_event`);
  expect(res.status).toBe(200);
  for (let i = 0; i < 400 && receiver.received.length === before; i++) await new Promise((r) => setTimeout(r, 25));
  expect(receiver.received.length).toBeGreaterThan(before);
  expect(receiver.received[receiver.received.length - 1].verifiedWith).toBe(secrets.webhook);
}

async function signInWithCode(t: TestApp): Promise<number> {
  const v = pageVisitor(t);
  await v.get('/dashboard');
  const res = await v.post('/dashboard/login', { email: secrets.email, password: secrets.password });
  expect(res.headers.location).toBe('/dashboard/login/code');
  await v.get('/dashboard/login/code');
  return (await v.post('/dashboard/login/code', { code: totpCodeAt(secrets.totp, t.clock.now()) })).status;
}

test('a webhook endpoint, a member with two factors and a signed page session: none of their secrets is in any byte of a copy of DATA_DIR', async () => {
  // The embedded default: no MASTER_KEY, the key file is made outside the data directory.
  const t = await startTestApp({ dataDir, embedded: true, webhooks: true, now: T0, env: WEBHOOKS });
  try {
    const account = await t.account('Tienda Sellada');
    secrets.key = account.test_key;
    const headers = { 'Idempotency-Key': 'create-sealed-endpoint' };
    const created = await t.as(account.test_key).post('/v1/webhook_endpoints', { url: receiver.url, enabled_events: ['*'] }, headers);
    expect(created.status).toBe(200);
    secrets.webhook = created.body.secret;
    secrets.endpoint = created.body.id;
    receiver.secrets = [secrets.webhook];
    // Shown again only to a retry of the same request (as Stripe does), from the sealed copy.
    const replay = await t.as(account.test_key).post('/v1/webhook_endpoints', { url: receiver.url, enabled_events: ['*'] }, headers);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.secret).toBe(secrets.webhook);
    expect((await t.as(account.test_key).get(`/v1/webhook_endpoints/${secrets.endpoint}`)).body.secret).toBeUndefined();
    // A refused create or rotation keeps no sealed secret behind.
    const sealedCount = async () => (await t.app.get<ReadStore>(READ_STORE).find(SEALED_SECRETS, { orderBy: { field: 'id', direction: 'asc' }, limit: 1000 })).length;
    const before = await sealedCount();
    expect((await t.as(account.test_key).post('/v1/webhook_endpoints', { url: receiver.url, enabled_events: ['nope.*'] })).status).toBe(400);
    expect((await t.as(account.test_key).post('/v1/webhook_endpoints/we_unknown/rotate_secret', {})).status).toBe(404);
    expect(await sealedCount()).toBe(before);
    await sendTestEvent(t);

    // A member enrols two factors; its browser holds a signed dashboard session.
    const { visitor, email, password } = await signInMember(t, account.id, 'owner');
    secrets.email = email;
    secrets.password = password;
    const enrol = await visitor.get('/dashboard/account/two-factor');
    secrets.totp = /data-totp-secret>([A-Z2-7 ]+)</.exec(enrol.text)![1].replace(/ /g, '');
    expect((await visitor.post('/dashboard/account/two-factor', { code: totpCodeAt(secrets.totp, t.clock.now()) })).status).toBe(200);
    expect(visitor.jar.get('dashboard_session')).toMatch(/\./);
    secrets.pagesKey = (await t.app.get(SecretVault).open('signing_key:pagessigningkey-default'))!;
    expect(Buffer.from(secrets.pagesKey, 'base64')).toHaveLength(32);

    // The audit log's Ed25519 signing key, made by the first signed head.
    const head = await t.as(account.test_key).get('/v1/audit/head?fresh=true');
    expect(head.status).toBe(200);
    const keyDoc = (await t.app.get<ReadStore>(READ_STORE).get<{ key_id: string; sealed_private_key: SealedSecret }>('audit_keys', 'signing'))!;
    expect(keyDoc.key_id).toBe(head.body.key_id);
    secrets.auditKey = t.app.get(SecretSealer).open(keyDoc.sealed_private_key);
    secrets.auditKeyId = keyDoc.key_id;
    expect(secrets.auditKey).toContain('BEGIN PRIVATE KEY');
  } finally {
    await t.close();
  }

  const keyFile = join(`${dataDir}.keys`, 'master.key');
  expect(existsSync(keyFile)).toBe(true);
  expect(existsSync(join(dataDir, 'master.key'))).toBe(false);

  const copy = mkdtempSync(join(tmpdir(), 'sealed-copy-'));
  cpSync(dataDir, copy, { recursive: true });
  const files = filesUnder(copy);
  expect(files.some((f) => f.endsWith('events.sqlite'))).toBe(true);
  const bytes = Buffer.concat(files.map((f) => readFileSync(f)));
  const rows = rowsUnder(copy);
  // The search finds what is there: the account's name and the endpoint's id are in the copy.
  expect(bytes.includes(Buffer.from('Tienda Sellada'))).toBe(true);
  expect(rows).toContain(secrets.endpoint);
  // The audit key in every form: its PEM, the PKCS#8 DER inside (base64 / raw / hex), and the 32-byte Ed25519 seed.
  const auditDer = secrets.auditKey.replace(/-----[A-Z ]+-----|\s/g, '');
  const auditSeed = Buffer.from(createPrivateKey(secrets.auditKey).export({ format: 'jwk' }).d as string, 'base64url').toString('base64');
  for (const [what, secret] of Object.entries({ webhook: secrets.webhook, totp: secrets.totp, pagesKey: secrets.pagesKey, masterKey: readFileSync(keyFile, 'utf8').trim(), auditKeyPem: secrets.auditKey, auditKeyDer: auditDer, auditKeySeed: auditSeed })) {
    for (const form of formsOf(secret)) {
      expect({ what, inFiles: bytes.includes(form) }).toEqual({ what, inFiles: false });
      expect({ what, inRows: rows.includes(form.toString('latin1')) }).toEqual({ what, inRows: false });
    }
  }
  rmSync(copy, { recursive: true, force: true });
}, 120_000);

test('secrets rewrap while the service runs; with the old key removed, webhooks sign with the same secret and two-factor codes work', async () => {
  const keyFile = join(`${dataDir}.keys`, 'master.key');
  const oldKey = readFileSync(keyFile, 'utf8').trim();
  const newKey = randomBytes(32);
  const newKeyFile = join(mkdtempSync(join(tmpdir(), 'newkey-')), 'new.key');
  writeFileSync(newKeyFile, `${newKey.toString('base64')}\n`, { mode: 0o600 });

  // 1. Every process accepts both keys, sealing with the new one.
  const env = { MASTER_KEY: newKey.toString('base64'), MASTER_KEY_PREVIOUS: oldKey };
  const during = await startTestApp({ dataDir, embedded: true, webhooks: true, now: new Date(T0.getTime() + 60_000), env: { ...WEBHOOKS, ...env } });
  try {
    // 2. The command, beside the running service.
    const lines: string[] = [];
    const code = await secretsRewrap(loadConfig({ DATA_DIR: dataDir, ...env }), newKey, (l) => lines.push(l));
    expect(code).toBe(0);
    expect(lines.join('\n')).toMatch(new RegExp(`re-wrapped [4-9]\\d* sealed secrets under master key ${masterKeyId(newKey)}`));
    expect(lines.join('\n')).not.toContain(newKey.toString('base64'));
    await sendTestEvent(during);
    // Run again: nothing left to do.
    const again: string[] = [];
    expect(await secretsRewrap(loadConfig({ DATA_DIR: dataDir, ...env }), newKey, (l) => again.push(l))).toBe(0);
    expect(again[0]).toMatch(/^re-wrapped 0 sealed secrets/);
  } finally {
    await during.close();
  }

  // 3. The old key goes: no key file, no MASTER_KEY_PREVIOUS.
  rmSync(keyFile);
  const after = await startTestApp({ dataDir, embedded: true, webhooks: true, now: new Date(T0.getTime() + 120_000), env: { ...WEBHOOKS, MASTER_KEY: newKey.toString('base64') } });
  try {
    await sendTestEvent(after);
    expect(await signInWithCode(after)).toBe(303);
    // The audit key was re-wrapped too: it opens under the new master key alone and still signs.
    const head = await after.as(secrets.key).get('/v1/audit/head?fresh=true');
    expect(head.status).toBe(200);
    expect(head.body.key_id).toBe(secrets.auditKeyId);
  } finally {
    await after.close();
  }
}, 120_000);

/** `npm start` on `dataDir` in a child process: its exit code and what it told the operator. */
function startService(env: Record<string, string>): { status: number | null; stderr: string } {
  const run = spawnSync(process.execPath, ['--no-warnings', '--import', './test/support/register-ts.mjs', 'apps/api/src/main.ts'], {
    env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'error', SCHEDULER: 'off', WEBHOOKS: 'off', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: run.status, stderr: run.stderr };
}

test('without its master key, or with another one, the service does not start and says what is missing and where it looked', () => {
  // Data holds sealed secrets; the key file is gone (the previous test) and MASTER_KEY is unset.
  const missing = startService({});
  expect(missing.status).toBe(78);
  expect(missing.stderr).toContain('The service does not start: No master key: MASTER_KEY is not set and there is no key file at');
  expect(missing.stderr).toContain(`${join(`${dataDir}.keys`, 'master.key')} (KEYS_DIR) nor ${join(dataDir, 'master.key')}, yet the stores hold secrets sealed under master key`);
  expect(existsSync(join(`${dataDir}.keys`, 'master.key'))).toBe(false);
  const other = randomBytes(32).toString('base64');
  const wrong = startService({ MASTER_KEY: other });
  expect(wrong.status).toBe(78);
  expect(wrong.stderr).toMatch(/The stores hold secrets sealed under master key [0-9a-f]{16}, which this process was not given \(it has [0-9a-f]{16}, from MASTER_KEY\)/);
  expect(wrong.stderr).not.toContain(other);
}, 130_000);

test('on empty data the embedded default makes its key outside DATA_DIR', async () => {
  const fresh = mkdtempSync(join(tmpdir(), 'fresh-'));
  const t = await startTestApp({ dataDir: fresh, embedded: true });
  await t.close();
  expect(existsSync(join(`${fresh}.keys`, 'master.key'))).toBe(true);
  expect(statSync(join(`${fresh}.keys`, 'master.key')).mode & 0o777).toBe(0o600);
  expect(existsSync(join(fresh, 'master.key'))).toBe(false);
}, 60_000);
