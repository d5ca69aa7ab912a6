import Database from 'better-sqlite3';
import type { EventStore } from '#event-store/event-store.port.js';
import { EVENT_STORE } from '#platform/tokens.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '#cli/cli.js';
import { billingSetup, card } from '../support/billing-fixtures.js';
import { startTestApp } from '../support/test-app.js';
import { readModelSnapshot } from '../faults/support/crash-harness.js';

function cli(args: string[], dataDir: string, env: Record<string, string> = {}) {
  const lines: string[] = [];
  return runCli(args, { out: (l) => lines.push(l) }, { DATA_DIR: dataDir, ...env }).then((code) => ({ code, lines }));
}

/** Every read-model document, by table, as stored, and the checkpoints (shared with the fault tests). */
const snapshot = readModelSnapshot;

function eventRows(dataDir: string): unknown[] {
  const db = new Database(join(dataDir, 'events.sqlite'), { readonly: true });
  const rows = db.prepare('SELECT * FROM events ORDER BY seq').all();
  db.close();
  return rows;
}

test('backup while the service runs, restore into a fresh data directory: the events are the backed-up prefix, and every read model equals a rebuild of them', async () => {
  const t = await startTestApp({ embedded: true });
  const key = (await t.account()).test_key;
  const api = t.as(key);
  const { customer, monthly } = await billingSetup(api);
  expect((await api.post('/v1/subscriptions', { customer: customer.id, items: [{ price: monthly.id }], collection_method: 'charge', payment_information: card() })).status).toBe(200);
  // Writes keep coming while the backup runs.
  const writes = Promise.all(Array.from({ length: 20 }, (_, i) => api.post('/v1/products', { name: `During backup ${i}` })));
  const backupDir = join(mkdtempSync(join(tmpdir(), 'billing-backup-')), 'b1');
  const backup = await cli(['backup', backupDir], t.dataDir);
  expect(backup.code).toBe(0);
  expect(backup.lines[0]).toMatch(/^backed up \d+ events/);
  await writes;
  await t.close();

  const fresh = mkdtempSync(join(tmpdir(), 'billing-restored-'));
  const restored = await cli(['restore', backupDir], fresh);
  expect(restored.code).toBe(0);
  // A second restore into the same directory is refused (it would overwrite stores).
  await expect(cli(['restore', backupDir], fresh)).rejects.toThrow(/restore into an empty DATA_DIR/);

  // The restored events are a prefix of the original's (what was written before the backup finished).
  const original = eventRows(t.dataDir);
  const copy = eventRows(fresh);
  expect(copy.length).toBeGreaterThan(0);
  expect(original.slice(0, copy.length)).toEqual(copy);

  // Started on the restored data with the original's master key (kept apart from the data, never in a
  // backup), the projections catch up; the documents equal a rebuild of the same events.
  const keys = { KEYS_DIR: `${t.dataDir}.keys` };
  const r = await startTestApp({ dataDir: fresh, embedded: true, env: keys });
  expect((await r.as(key).get(`/v1/customers/${customer.id}`)).status).toBe(200);
  // Caught up with what its own start wrote too, before it stops (a stopping worker hands the rest on).
  const headAtStart = await r.app.get<EventStore>(EVENT_STORE).headPosition();
  if (headAtStart) await r.app.get(ProjectionEngine).waitFor(headAtStart);
  await r.close();
  const caughtUp = snapshot(fresh);
  expect((await cli(['projections', 'rebuild'], fresh, keys)).code).toBe(0);
  expect(snapshot(fresh)).toEqual(caughtUp);
}, 120_000);

test('backup refuses a non-empty directory and production stores', async () => {
  const t = await startTestApp({ embedded: true });
  await t.account();
  const dir = mkdtempSync(join(tmpdir(), 'billing-backup-'));
  expect((await cli(['backup', dir], t.dataDir)).code).toBe(0);
  await expect(cli(['backup', dir], t.dataDir)).rejects.toThrow(/not empty/);
  await expect(runCli(['backup', join(dir, 'x')], { out: () => undefined }, { DATA_DIR: t.dataDir, MONGO_URL: 'mongodb://localhost/x' })).rejects.toThrow(/embedded stores only/);
  await t.close();
});

test('accounts list prints every account id and name, never a key', async () => {
  const t = await startTestApp({ embedded: true });
  await t.account('First SAS');
  await t.account('Second SAS');
  await t.close();
  const { code, lines } = await cli(['accounts', 'list', '--json'], t.dataDir);
  expect(code).toBe(0);
  const accounts = JSON.parse(lines[0]);
  expect(accounts.map((a: { name: string }) => a.name).sort()).toEqual(['First SAS', 'Second SAS']);
  expect(accounts[0].id).toMatch(/^acct_/);
  expect(lines.join('\n')).not.toMatch(/sk_/);
});
