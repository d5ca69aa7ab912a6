import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, UsageError } from '#cli/cli.js';
import { startTestApp } from '../support/test-app.js';

function cli(args: string[], dataDir: string) {
  const lines: string[] = [];
  return runCli(args, { out: (l) => lines.push(l) }, { DATA_DIR: dataDir }).then((code) => ({ code, lines }));
}

/** Every read-model document, by table, as stored. */
function snapshot(dataDir: string): Record<string, unknown[]> {
  const db = new Database(join(dataDir, 'read-models.sqlite'), { readonly: true });
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rm_%' ORDER BY name").all() as { name: string }[];
  const out: Record<string, unknown[]> = {};
  for (const { name } of tables) out[name] = db.prepare(`SELECT id, doc FROM ${name} ORDER BY id`).all();
  db.close();
  return out;
}

describe('cli', () => {
  test('accounts create --json prints one JSON line whose keys authenticate and whose owner invitation opens the dashboard once', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cli-'));
    const { code, lines } = await cli(['accounts', 'create', '--name', 'Acme SAS', '--owner-email', 'Ana@Acme.co', '--json'], dataDir);
    expect(code).toBe(0);
    expect(lines).toHaveLength(1);
    const account = JSON.parse(lines[0]);
    expect(account).toEqual({
      id: expect.stringMatching(/^acct_/),
      name: 'Acme SAS',
      test_key: expect.stringMatching(/^sk_test_/),
      live_key: expect.stringMatching(/^sk_live_/),
      owner_invitation: { member: expect.stringMatching(/^mem_/), url: expect.stringMatching(/^http:\/\/localhost:\d+\/dashboard\/invitations\/invite_[A-Za-z0-9]+\.[A-Za-z0-9_-]+$/), expires_at: expect.any(String) },
    });
    const t = await startTestApp({ dataDir, embedded: true });
    try {
      const res = await t.as(account.test_key).post('/v1/products', { name: 'x' });
      expect(res.status).toBe(200);
      expect(res.body.is_test).toBe(true);
      const live = await t.as(account.live_key).post('/v1/products', { name: 'y' });
      expect(live.body.is_test).toBe(false);
      const path = new URL(account.owner_invitation.url).pathname;
      const page = await t.http().get(path);
      expect(page.status).toBe(200);
      expect(page.text).toContain('ana@acme.co');
      // The invitation is the owner's: the team stream says so.
      const members = await cli(['members', 'list', '--account', account.id, '--json'], dataDir);
      expect(JSON.parse(members.lines[0])).toEqual([{ id: account.owner_invitation.member, email: 'ana@acme.co', role: 'owner', status: 'invited', two_factor: false }]);
    } finally {
      await t.close();
    }
  });

  test('projections rebuild ends with the same documents as before', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cli-'));
    const t = await startTestApp({ dataDir, embedded: true });
    const { test_key: key, live_key: live } = await t.account();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      t.clock.advanceMs(1500);
      ids.push((await t.as(i % 2 ? key : live).post('/v1/products', { name: `p${i}`, meta_data: { i: String(i) } })).body.id);
    }
    await t.as(live).post(`/v1/products/${ids[0]}/update`, { status: 'inactive', meta_data: { i: '' } });
    await t.as(key).delete(`/v1/products/${ids[1]}`);
    await t.close();
    const before = snapshot(dataDir);
    expect(Object.keys(before)).toEqual(expect.arrayContaining(['rm_products', 'rm_events', 'rm_api_keys']));
    expect(before.rm_events.length).toBeGreaterThanOrEqual(7);

    const { code, lines } = await cli(['projections', 'rebuild'], dataDir);
    expect(code).toBe(0);
    expect(lines.join('\n')).toMatch(/rebuilt products: \d+ events/);
    expect(snapshot(dataDir)).toEqual(before);

    // One resource projection alone: its documents and its feed entries again, the others' entries untouched.
    await cli(['projections', 'rebuild', 'products'], dataDir);
    expect(snapshot(dataDir)).toEqual(before);
  });

  test('accounts gateways list, add and remove, in each mode', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cli-'));
    const account = JSON.parse((await cli(['accounts', 'create', '--name', 'Gateways SAS', '--json'], dataDir)).lines[0]);
    const gw = (...args: string[]) => cli(['accounts', 'gateways', ...args], dataDir);

    const testList = await gw('list', '--account', account.id, '--mode', 'test', '--json');
    expect(testList.code).toBe(0);
    expect(testList.lines).toHaveLength(1);
    const list = JSON.parse(testList.lines[0]);
    expect(list).toMatchObject({ object: 'list', url: '/v1/account/gateways', has_more: false });
    expect(list.data).toHaveLength(11);
    expect(list.data[1]).toEqual({ object: 'gateway', id: 'gateway_b', connector: 'simulator', methods: ['card', 'pse', 'efecty'], mode: 'test' });
    expect(JSON.parse((await gw('list', '--account', account.id, '--mode', 'live', '--json')).lines[0]).data).toEqual([]);
    expect((await gw('list', '--account', account.id, '--mode', 'live')).lines).toEqual([`no gateways configured on ${account.id} in live mode`]);

    const added = await gw('add', '--account', account.id, '--mode', 'live', '--gateway', 'gateway_h', '--json');
    expect(added.code).toBe(0);
    expect(JSON.parse(added.lines[0])).toEqual({ object: 'gateway', id: 'gateway_h', connector: 'simulator', methods: ['card', 'pse', 'efecty'], mode: 'live' });
    expect((await gw('list', '--account', account.id, '--mode', 'live')).lines).toEqual([expect.stringMatching(/^gateway_h\s+simulator\s+card, pse, efecty$/)]);

    const removed = await gw('remove', '--account', account.id, '--mode', 'test', '--gateway', 'offline');
    expect(removed.code).toBe(0);
    expect(removed.lines).toEqual([`removed offline from ${account.id} in test mode`]);
    await expect(gw('remove', '--account', account.id, '--mode', 'test', '--gateway', 'offline')).rejects.toMatchObject({ code: 'resource_missing', status: 404 });
    await expect(gw('add', '--account', account.id, '--mode', 'test', '--gateway', 'nope')).rejects.toMatchObject({ code: 'parameter_invalid', param: 'gateway' });

    // What the CLI wrote is what the service answers.
    const t = await startTestApp({ dataDir, embedded: true });
    try {
      expect((await t.as(account.live_key).get('/v1/account/gateways')).body.data.map((g: { id: string }) => g.id)).toEqual(['gateway_h']);
      const testIds = (await t.as(account.test_key).get('/v1/account/gateways')).body.data.map((g: { id: string }) => g.id);
      expect(testIds).toHaveLength(10);
      expect(testIds).not.toContain('offline');
    } finally {
      await t.close();
    }
  });

  test('accounts gateways needs --account, --mode test|live and, to add or remove, --gateway', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cli-'));
    await expect(cli(['accounts', 'gateways', 'list', '--mode', 'test'], dataDir)).rejects.toBeInstanceOf(UsageError);
    await expect(cli(['accounts', 'gateways', 'list', '--account', 'acct_1', '--mode', 'prod'], dataDir)).rejects.toBeInstanceOf(UsageError);
    await expect(cli(['accounts', 'gateways', 'add', '--account', 'acct_1', '--mode', 'test'], dataDir)).rejects.toBeInstanceOf(UsageError);
    await expect(cli(['accounts', 'gateways', 'rename', '--account', 'acct_1', '--mode', 'test'], dataDir)).rejects.toBeInstanceOf(UsageError);
    await expect(cli(['accounts', 'gateways', 'add', '--account', 'acct_nope', '--mode', 'test', '--gateway', 'gateway_a'], dataDir)).rejects.toMatchObject({
      code: 'resource_missing',
    });
  });

  test('accounts retry-policy get and set; the service answers what the CLI wrote', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cli-'));
    const account = JSON.parse((await cli(['accounts', 'create', '--name', 'Dunning SAS', '--json'], dataDir)).lines[0]);
    const rp = (...args: string[]) => cli(['accounts', 'retry-policy', ...args], dataDir);

    const got = await rp('get', '--account', account.id, '--json');
    expect(got.code).toBe(0);
    expect(got.lines).toHaveLength(1);
    expect(JSON.parse(got.lines[0])).toEqual({ object: 'retry_policy', retry_days: [1, 3, 5], final_days: 7 });
    expect((await rp('get', '--account', account.id)).lines).toEqual([`retry policy of ${account.id}: retries at due + 1, 3, 5 days; uncollectible at due + 7 days`]);

    const set = await rp('set', '--account', account.id, '--retry-days', '2,4, 8', '--final-days', '14', '--json');
    expect(set.code).toBe(0);
    expect(set.lines).toHaveLength(1);
    expect(JSON.parse(set.lines[0])).toEqual({ object: 'retry_policy', retry_days: [2, 4, 8], final_days: 14 });
    expect((await rp('set', '--account', account.id, '--retry-days', '', '--final-days', '3')).lines).toEqual([
      `retry policy of ${account.id}: no retries; uncollectible at due + 3 days`,
    ]);
    await expect(rp('set', '--account', account.id, '--retry-days', '1,3,9', '--final-days', '7')).rejects.toMatchObject({ code: 'parameter_invalid', param: 'retry_days' });
    await expect(rp('set', '--account', account.id, '--retry-days', '1', '--final-days', '91')).rejects.toMatchObject({ code: 'parameter_invalid', param: 'final_days' });
    await rp('set', '--account', account.id, '--retry-days', '5,10', '--final-days', '20');

    const t = await startTestApp({ dataDir, embedded: true });
    try {
      const expected = { object: 'retry_policy', retry_days: [5, 10], final_days: 20 };
      expect((await t.as(account.test_key).get('/v1/account/retry_policy')).body).toEqual(expected);
      expect((await t.as(account.live_key).get('/v1/account/retry_policy')).body).toEqual(expected);
    } finally {
      await t.close();
    }
  });

  test('accounts invoicing get and set (numbering range, default withholdings); the service answers what the CLI wrote', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cli-'));
    const account = JSON.parse((await cli(['accounts', 'create', '--name', 'Facturas SAS', '--json'], dataDir)).lines[0]);
    const inv = (...args: string[]) => cli(['accounts', 'invoicing', ...args, '--account', account.id, '--json'], dataDir);
    expect(JSON.parse((await inv('get', '--mode', 'live')).lines[0])).toMatchObject({ object: 'invoicing_settings', mode: 'live', enabled: false, numbering: { prefix: 'SETT', next_number: 1 } });
    const set = await inv('set', '--mode', 'live', '--prefix', 'FE', '--next-number', '1001', '--range-end', '5000', '--reteica', '9.66');
    expect(JSON.parse(set.lines[0])).toMatchObject({ numbering: { prefix: 'FE', next_number: 1001, range_end: 5000 }, default_retentions: { reteica: '9.66' } });
    await expect(inv('set', '--mode', 'live', '--prefix', 'fe-x')).rejects.toMatchObject({ code: 'parameter_invalid', param: 'numbering[prefix]' });
    await expect(inv('get')).rejects.toBeInstanceOf(UsageError);
    // An account that does not exist is refused, and nothing is stored for it.
    const unknown = (...args: string[]) => cli(['accounts', 'invoicing', ...args, '--account', 'acct_nope', '--mode', 'live', '--json'], dataDir);
    await expect(unknown('get')).rejects.toMatchObject({ code: 'resource_missing', status: 404, param: 'account' });
    await expect(unknown('set', '--enabled', 'true')).rejects.toMatchObject({ code: 'resource_missing', status: 404 });
    await expect(cli(['accounts', 'gateways', 'list', '--account', 'acct_nope', '--mode', 'test'], dataDir)).rejects.toMatchObject({ code: 'resource_missing', status: 404 });
    expect(JSON.stringify(snapshot(dataDir))).not.toContain('acct_nope');
    const t = await startTestApp({ dataDir, embedded: true });
    try {
      expect((await t.as(account.live_key).get('/v1/account/invoicing_settings')).body).toMatchObject({ numbering: { prefix: 'FE', next_number: 1001 } });
      expect((await t.as(account.test_key).get('/v1/account/invoicing_settings')).body).toMatchObject({ numbering: { prefix: 'SETT' } });
    } finally {
      await t.close();
    }
  });

  test('accounts retry-policy needs --account and, to set, --retry-days and --final-days as whole numbers', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cli-'));
    await expect(cli(['accounts', 'retry-policy', 'get'], dataDir)).rejects.toBeInstanceOf(UsageError);
    await expect(cli(['accounts', 'retry-policy', 'set', '--account', 'acct_1', '--final-days', '7'], dataDir)).rejects.toBeInstanceOf(UsageError);
    await expect(cli(['accounts', 'retry-policy', 'set', '--account', 'acct_1', '--retry-days', '1,3'], dataDir)).rejects.toBeInstanceOf(UsageError);
    await expect(cli(['accounts', 'retry-policy', 'set', '--account', 'acct_1', '--retry-days', '1,x', '--final-days', '7'], dataDir)).rejects.toBeInstanceOf(UsageError);
    await expect(cli(['accounts', 'retry-policy', 'set', '--account', 'acct_1', '--retry-days', '1', '--final-days', '7d'], dataDir)).rejects.toBeInstanceOf(UsageError);
    await expect(cli(['accounts', 'retry-policy', 'reset', '--account', 'acct_1'], dataDir)).rejects.toBeInstanceOf(UsageError);
    await expect(cli(['accounts', 'retry-policy', 'get', '--account', 'acct_nope'], dataDir)).rejects.toMatchObject({ code: 'resource_missing' });
    await expect(cli(['accounts', 'retry-policy', 'set', '--account', 'acct_nope', '--retry-days', '1', '--final-days', '7'], dataDir)).rejects.toMatchObject({
      code: 'resource_missing',
    });
  });

  test('accounts rename: the name customers read; the service answers with it; unknown accounts and empty names refused', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cli-'));
    const account = JSON.parse((await cli(['accounts', 'create', '--name', 'Default account', '--json'], dataDir)).lines[0]);
    const renamed = await cli(['accounts', 'rename', '--account', account.id, '--name', 'Mi Tienda SAS', '--json'], dataDir);
    expect(JSON.parse(renamed.lines[0])).toEqual({ id: account.id, name: 'Mi Tienda SAS' });
    expect((await cli(['accounts', 'list', '--json'], dataDir)).lines[0]).toContain('"name":"Mi Tienda SAS"');
    await expect(cli(['accounts', 'rename', '--account', account.id, '--name', '  '], dataDir)).rejects.toMatchObject({ code: 'parameter_invalid', param: 'name' });
    await expect(cli(['accounts', 'rename', '--account', 'acct_nope', '--name', 'X'], dataDir)).rejects.toMatchObject({ code: 'resource_missing', status: 404 });
    await expect(cli(['accounts', 'rename', '--account', account.id], dataDir)).rejects.toBeInstanceOf(UsageError);
  });

  test('keys create, list, roll and revoke: keys printed once, listed masked; the service answers as the CLI decided', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cli-'));
    const account = JSON.parse((await cli(['accounts', 'create', '--name', 'Keys SAS', '--json'], dataDir)).lines[0]);
    const keys = (...args: string[]) => cli(['keys', ...args, '--account', account.id], dataDir);

    const restricted = await keys('create', '--mode', 'test', '--restricted', '--permissions', 'subscriptions=read, customers=write', '--name', 'Reports', '--json');
    expect(restricted.code).toBe(0);
    const rk = JSON.parse(restricted.lines[0]);
    expect(rk).toEqual({ id: expect.any(String), key: expect.stringMatching(/^rk_test_[0-9A-Za-z]{44}$/), kind: 'restricted', mode: 'test', name: 'Reports' });
    const sk = JSON.parse((await keys('create', '--mode', 'live', '--json')).lines[0]);
    expect(sk).toMatchObject({ key: expect.stringMatching(/^sk_live_/), kind: 'secret', name: 'Secret key' });

    const testKeyId = account.test_key.slice(8, 20);
    const rolled = JSON.parse((await keys('roll', '--key', testKeyId, '--expires-in', '24h', '--json')).lines[0]);
    expect(rolled).toMatchObject({ key: expect.stringMatching(/^sk_test_/), kind: 'secret', mode: 'test', rolled: { id: testKeyId, expires_at: expect.any(String) } });
    expect(Date.parse(rolled.rolled.expires_at) - Date.now()).toBeGreaterThan(24 * 3600_000 - 60_000);
    // A full key names its key too.
    const revoked = await keys('revoke', '--key', account.live_key);
    expect(revoked.lines).toEqual([expect.stringMatching(new RegExp(`^revoked ${account.live_key.slice(8, 20)} at `))]);

    const listed = JSON.parse((await keys('list', '--json')).lines[0]);
    expect(listed).toHaveLength(5);
    expect(listed.map((k: { masked: string; status: string }) => `${k.masked.slice(0, 8)} ${k.status}`).sort()).toEqual(
      ['rk_test_ active', 'sk_live_ active', 'sk_live_ revoked', 'sk_test_ active', 'sk_test_ expiring'].sort(),
    );
    expect(listed.find((k: { id: string }) => k.id === rk.id).permissions).toEqual({ customers: 'write', subscriptions: 'read' });
    const text = (await keys('list')).lines.join('\n');
    expect(text).toContain(`rk_test_…${rk.key.slice(-4)}`);
    for (const printed of [rk.key, sk.key, rolled.key, account.test_key, account.live_key]) {
      expect(JSON.stringify(listed)).not.toContain(printed.slice(20));
      expect(text).not.toContain(printed.slice(20));
    }
    expect(JSON.stringify(listed)).not.toMatch(/secret_hash|[0-9a-f]{64}/);

    // Refusals: bad expiry, unknown key, permissions without --restricted, unknown account.
    await expect(keys('roll', '--key', rolled.id, '--expires-in', '8d')).rejects.toMatchObject({ code: 'parameter_invalid', param: 'expires_in' });
    await expect(keys('roll', '--key', rolled.id, '--expires-in', 'soon')).rejects.toBeInstanceOf(UsageError);
    await expect(keys('revoke', '--key', 'nokey0000000')).rejects.toMatchObject({ code: 'resource_missing', status: 404, param: 'key' });
    await expect(keys('create', '--mode', 'test', '--permissions', 'customers=read')).rejects.toBeInstanceOf(UsageError);
    await expect(keys('create', '--mode', 'test', '--restricted', '--permissions', 'spaceships=read')).rejects.toMatchObject({ code: 'parameter_invalid', param: 'permissions[spaceships]' });
    await expect(keys('create')).rejects.toBeInstanceOf(UsageError);
    await expect(cli(['keys', 'list', '--account', 'acct_nope'], dataDir)).rejects.toMatchObject({ code: 'resource_missing', status: 404, param: 'account' });
    await expect(cli(['keys', 'list'], dataDir)).rejects.toBeInstanceOf(UsageError);

    const t = await startTestApp({ dataDir, embedded: true });
    try {
      expect((await t.as(account.live_key).get('/v1/products')).status).toBe(401);
      expect((await t.as(sk.key).get('/v1/products')).status).toBe(200);
      expect((await t.as(account.test_key).get('/v1/products')).status).toBe(200); // rolled, not yet expired
      expect((await t.as(rolled.key).get('/v1/products')).status).toBe(200);
      expect((await t.as(rk.key).get('/v1/subscriptions')).status).toBe(200);
      expect((await t.as(rk.key).post('/v1/subscriptions', {})).status).toBe(403);
    } finally {
      await t.close();
    }
  });

  test('an unknown command or projection is refused', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cli-'));
    await expect(cli(['accounts', 'delete'], dataDir)).rejects.toBeInstanceOf(UsageError);
    await expect(cli(['projections', 'rebuild', 'nope'], dataDir)).rejects.toThrow(/no projection named nope/);
  });
});
