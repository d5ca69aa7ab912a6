import { jest } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '#cli/cli.js';
import type { EventStore, NewEvent } from '#event-store/event-store.port.js';
import { encodePosition } from '#event-store/positions.js';
import type { CommandContext } from '#platform/command-context.js';
import { EVENT_STORE } from '#platform/tokens.js';
import { newEventUuid, newId } from '#shared/ids.js';
import { SubscriptionInputs } from '#subscriptions/application/subscription-inputs.js';
import { type SubscriptionInput, subscriptionDecider, subscriptionStream } from '#subscriptions/domain/subscription.decider.js';
import { allProjections } from '#projections/index.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import { buildService, type ChildService, removeBuild, startChild } from '../support/child-service.js';
import { startTestApp } from '../support/test-app.js';
import { report } from '../support/test-output.js';
import { digestDifferences, feedAgainstEvents, headSeq, inStore, readModelDigest } from './support/crash-harness.js';

/**
 * Issue 14, §3: SIGKILL during a projection batch, during a billing run of 10,000 renewals, and
 * during a rebuild; after each restart the invariants hold: every subscription renewed exactly once,
 * one collection and one successful charge per renewal, every event in the feed once, and read models
 * byte-identical to a fresh rebuild.
 *
 * 1. Seeding (this process, the service in-process on a fixed clock 31 days ago): an account, a
 *    monthly price, 16 customers with a saved card, then 10,000 migrated `charge` subscriptions whose
 *    `next_renewal_date` is an hour ago — `subscription.created` decided by the subscription decider
 *    and appended straight into the SQLite event store (as bench/run.ts seeds), with the projectors
 *    stopped, so the read models are 10,000 events behind.
 * 2. The service as a child process (ROLE all: projectors and the deadline scheduler, system clock)
 *    projects the backlog in batches: SIGKILL once some but not all of it is projected.
 * 3. Restarted, it finishes projecting and starts the billing run: SIGKILL once a third of the
 *    renewals are in the event store.
 * 4. Restarted, it finishes the run. Invariants on the event store and the feed.
 * 5. `projections rebuild` (the CLI as a child process) SIGKILLed part-way; the service restarted
 *    catches the projections up; documents byte-identical to those before; a full rebuild: identical.
 */
jest.setTimeout(600_000);

/** The size; FAULT_RENEWALS overrides it (a quicker local run). */
const RENEWALS = Number(process.env.FAULT_RENEWALS ?? 10_000);
const CUSTOMERS = 16;
/** Embedded stores always (the invariants are read from the SQLite files), whatever EVENTSTORE_URL / MONGO_URL say. */
const ENV = { EVENTSTORE_URL: '', MONGO_URL: '', SCHEDULER_POLL_MS: '200', RATE_LIMIT_MAX: '0', WEBHOOKS: 'off', MAIL_FOLLOWER: 'off' };
const PROJECTIONS = allProjections().map((p) => p.name);

let build: string;
let child: ChildService | null = null;

beforeAll(() => {
  build = buildService();
});
afterAll(async () => {
  await child?.kill('SIGKILL');
  removeBuild(build);
});

async function waitUntil(condition: () => boolean, timeoutMs: number, describe: () => string, everyMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${describe()}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Every projection's checkpoint (null: none yet) and how many events it is behind the head. */
function checkpoints(dataDir: string): Map<string, number | null> {
  const rows = inStore(dataDir, 'read-models', (db) => {
    const has = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'checkpoints'").get();
    return has ? (db.prepare('SELECT name, position FROM checkpoints').all() as { name: string; position: string }[]) : [];
  });
  const found = new Map(rows.map((r) => [r.name, Number(r.position.split('/')[0])]));
  return new Map(PROJECTIONS.map((name) => [name, found.get(name) ?? null]));
}

const caughtUp = (dataDir: string) => {
  const head = headSeq(dataDir);
  return [...checkpoints(dataDir).values()].every((c) => c === head);
};
const countType = (dataDir: string, type: string) =>
  inStore(dataDir, 'events', (db) => (db.prepare('SELECT COUNT(*) AS n FROM events WHERE type = ?').get(type) as { n: number }).n);

/** The subscriptions' renewals, seeded as bench/run.ts seeds its billing run. */
async function seed(dataDir: string, due: Date): Promise<{ first: number; last: number }> {
  const t = await startTestApp({ dataDir, now: new Date(due.getTime() - 31 * 24 * 3600_000), embedded: true });
  try {
    const account = await t.account('Billing run crash');
    const api = t.as(account.test_key);
    const ok = <T>(res: { status: number; body: T }) => {
      if (res.status !== 200) throw new Error(`set-up: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body as any;
    };
    const product = ok(await api.post('/v1/products', { name: 'Plan crash run' }));
    const price = ok(await api.post('/v1/prices', { product_id: product.id, type: 'recurring', billing_period: 'month', billing_interval: 1, currency: 'COP', unit_price: '49900' }));
    const payers: { customer: string; method: string }[] = [];
    for (let i = 0; i < CUSTOMERS; i++) {
      const customer = ok(await api.post('/v1/customers', { email: `crash.run.${i}@example.com`, name: `Crash Run ${i}` }));
      const method = ok(
        await api.post('/v1/payment_methods/migrate', {
          customer: customer.id, gateway: 'gateway_a', type: 'card', token: `simtok_approve_crashrun${i}`,
          card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030 }, default: true,
        }),
      );
      payers.push({ customer: customer.id, method: method.id });
    }
    const engine = t.app.get(ProjectionEngine);
    await engine.stop();
    const first = headSeq(dataDir) + 1;
    const events = t.app.get<EventStore>(EVENT_STORE);
    const inputs = t.app.get(SubscriptionInputs);
    const ctx: CommandContext = { accountId: account.id, mode: 'test', requestId: null, idempotencyKey: null };
    const facts = await Promise.all(payers.map((p) => inputs.paymentMethodFacts(ctx, p.customer, p.method, p.method)));
    const items = await inputs.items(ctx, [{ price: price.id }]);
    const now = t.clock.now();
    for (let from = 0; from < RENEWALS; from += 1000) {
      const wave = Array.from({ length: Math.min(1000, RENEWALS - from) }, (_, k) => {
        const payer = payers[(from + k) % CUSTOMERS];
        const input: SubscriptionInput = {
          customer: payer.customer, collection_method: 'charge', payment_method: payer.method, items, next_renewal_date: due.toISOString(), payment_information: undefined, test_clock: null,
        } as SubscriptionInput;
        const subscriptionId = newId('sub');
        const decided = subscriptionDecider.decide(
          { type: 'CreateSubscription', owner: ctx, subscriptionId, firstCollectionId: newId('col'), discountIds: [], input, paymentMethods: facts[(from + k) % CUSTOMERS], migrate: true, now },
          subscriptionDecider.initialState,
        );
        const recorded: NewEvent[] = decided.map((e) => ({
          id: newEventUuid(),
          type: e.type,
          data: e.data as Record<string, unknown>,
          metadata: { account_id: ctx.accountId, mode: ctx.mode, idempotency_key: null, occurred_at: now.toISOString() },
        }));
        return events.append(subscriptionStream(subscriptionId), recorded, 'no_stream');
      });
      await Promise.all(wave);
    }
    return { first, last: headSeq(dataDir) };
  } finally {
    await t.close();
  }
}

test('SIGKILL during a projection batch, during a billing run of 10,000 renewals and during a rebuild: each renewed once, one charge each, read models byte-identical to a rebuild', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'billing-run-crash-'));
  const due = new Date(Date.now() - 3600_000);
  const started = Date.now();
  const seeded = await seed(dataDir, due);
  expect(countType(dataDir, 'subscription.created')).toBe(RENEWALS);
  const figures: string[] = [`seeded ${RENEWALS} subscriptions (events ${seeded.first}–${seeded.last}) in ${((Date.now() - started) / 1000).toFixed(1)} s`];

  // 2. SIGKILL while the backlog is being projected (some checkpoints past the seeding's start, not all at
  // its end): the service catches up at start-up, before it listens, so it is not waited for.
  child = await startChild(build, dataDir, ENV, { wait: false });
  await waitUntil(
    () => [...checkpoints(dataDir).values()].some((c) => c !== null && c >= seeded.first),
    120_000,
    () => `no projection batch committed: ${JSON.stringify([...checkpoints(dataDir)])}\n${child!.output().slice(-3000)}`,
    20,
  );
  await child.kill('SIGKILL');
  const atKill = [...checkpoints(dataDir).values()].map((c) => c ?? 0);
  const at = () => `[${((Date.now() - started) / 1000).toFixed(0)} s]`;
  figures.push(
    `${at()} kill 1 (projection batch): checkpoints between ${Math.min(...atKill)} and ${Math.max(...atKill)} of ${headSeq(dataDir)}; ${countType(dataDir, 'subscription.renewed')} renewals already, ` +
      `${countType(dataDir, 'collection.created') - countType(dataDir, 'transaction.created')} of their collections not attempted`,
  );
  expect(Math.min(...atKill)).toBeLessThan(seeded.last);

  // 3. SIGKILL a third of the way through the billing run. (Restarts are not waited for: the service
  // catches its projections up before it listens, and only the stores are watched.)
  child = await startChild(build, dataDir, ENV, { wait: false });
  await waitUntil(() => countType(dataDir, 'subscription.renewed') >= RENEWALS / 3, 240_000, () => `renewed ${countType(dataDir, 'subscription.renewed')}\n${child!.output().slice(-3000)}`, 100);
  await child.kill('SIGKILL');
  const renewedAtKill = countType(dataDir, 'subscription.renewed');
  const chargesAtKill = countType(dataDir, 'charge.created') - countType(dataDir, 'charge.paid');
  const unattemptedAtKill = countType(dataDir, 'collection.created') - countType(dataDir, 'transaction.created');
  figures.push(`${at()} kill 2 (billing run): ${renewedAtKill} renewals in the store, ${unattemptedAtKill} of their collections not attempted yet, ${chargesAtKill} charges started and not yet paid`);
  expect(renewedAtKill).toBeLessThan(RENEWALS);

  // 4. Restarted: the run finishes; wait until nothing more is written and every projection is at the head.
  child = await startChild(build, dataDir, ENV, { wait: false });
  let steadySince = 0;
  let lastHead = -1;
  await waitUntil(
    () => {
      const head = headSeq(dataDir);
      if (head !== lastHead || !caughtUp(dataDir) || countType(dataDir, 'collection.paid') < RENEWALS) {
        lastHead = head;
        steadySince = Date.now();
        return false;
      }
      return Date.now() - steadySince > 1500;
    },
    300_000,
    () => `renewed ${countType(dataDir, 'subscription.renewed')}, paid ${countType(dataDir, 'collection.paid')}, head ${headSeq(dataDir)}, checkpoints ${JSON.stringify([...checkpoints(dataDir)])}\n${child!.output().slice(-3000)}`,
    250,
  );
  await child.kill('SIGTERM');
  child = null;

  const perSubscription = inStore(dataDir, 'events', (db) =>
    db
      .prepare(
        `WITH renewals AS (SELECT substr(stream_id, 14) AS id, SUM(type = 'subscription.renewed') AS renewed FROM events WHERE stream_id LIKE 'subscription-%' GROUP BY stream_id),
              collections AS (SELECT json_extract(data, '$.subscription') AS id, COUNT(*) AS n FROM events WHERE type = 'collection.created' GROUP BY 1)
         SELECT COUNT(*) AS subscriptions, SUM(r.renewed = 1) AS renewed_once, SUM(r.renewed > 1) AS renewed_twice,
                SUM(COALESCE(c.n, 0) = 1) AS one_collection, SUM(COALESCE(c.n, 0) > 1) AS two_collections
           FROM renewals r LEFT JOIN collections c ON c.id = r.id`,
      )
      .get() as { subscriptions: number; renewed_once: number; renewed_twice: number; one_collection: number; two_collections: number },
  );
  const perCollection = inStore(dataDir, 'events', (db) =>
    db
      .prepare(
        `SELECT COUNT(*) AS collections, SUM(charges = 1 AND paid = 1 AND collection_paid = 1) AS charged_once, SUM(charges > 1 OR paid > 1 OR collection_paid > 1) AS twice
           FROM (SELECT stream_id, SUM(type = 'charge.created') AS charges, SUM(type = 'charge.paid') AS paid, SUM(type = 'collection.paid') AS collection_paid
                   FROM events WHERE stream_id LIKE 'collection-%' GROUP BY stream_id)`,
      )
      .get() as { collections: number; charged_once: number; twice: number },
  );
  const feed = feedAgainstEvents(dataDir);
  figures.push(
    `${at()} after the restart: ${perSubscription.subscriptions} subscriptions, renewed once ${perSubscription.renewed_once}, twice ${perSubscription.renewed_twice}; ` +
      `collections ${perCollection.collections}, one charge paid once ${perCollection.charged_once}, duplicates ${perCollection.twice}; ` +
      `feed ${feed.entries} entries for ${feed.eligible} events, missing ${feed.missing.length}, strays ${feed.strays.length}`,
  );
  expect(perSubscription).toEqual({ subscriptions: RENEWALS, renewed_once: RENEWALS, renewed_twice: 0, one_collection: RENEWALS, two_collections: 0 });
  expect(perCollection).toEqual({ collections: RENEWALS, charged_once: RENEWALS, twice: 0 });
  expect(feed.missing).toEqual([]);
  expect(feed.strays).toEqual([]);
  expect(feed.entries).toBe(feed.eligible);
  const afterRun = readModelDigest(dataDir);
  const head = headSeq(dataDir);

  // 5. SIGKILL the CLI's rebuild part-way (its checkpoints reset, then moving, not yet at the head).
  const rebuild = spawn(process.execPath, [join(build, 'apps/cli/src/main.js'), 'projections', 'rebuild'], { env: { ...process.env, DATA_DIR: dataDir }, stdio: ['ignore', 'pipe', 'pipe'] });
  let rebuildOutput = '';
  rebuild.stdout.on('data', (d) => (rebuildOutput += d));
  rebuild.stderr.on('data', (d) => (rebuildOutput += d));
  const rebuildExit = new Promise<number | null>((r) => rebuild.once('exit', (code) => r(code)));
  await waitUntil(
    () => {
      const c = [...checkpoints(dataDir).values()];
      return c.some((p) => p !== null && p > 0 && p < head) || rebuild.exitCode !== null;
    },
    120_000,
    () => `rebuild: ${JSON.stringify([...checkpoints(dataDir)])}\n${rebuildOutput}`,
    20,
  );
  expect(rebuild.exitCode).toBeNull();
  rebuild.kill('SIGKILL');
  await rebuildExit;
  const rebuildAtKill = [...checkpoints(dataDir).values()].map((c) => c ?? 0);
  figures.push(`${at()} kill 3 (rebuild): checkpoints between ${Math.min(...rebuildAtKill)} and ${Math.max(...rebuildAtKill)} of ${head}`);

  // The service restarted on it catches up from the rebuild's checkpoints: the same documents as before.
  child = await startChild(build, dataDir, ENV, { wait: false });
  await waitUntil(() => caughtUp(dataDir), 240_000, () => `after the killed rebuild: ${JSON.stringify([...checkpoints(dataDir)])}`, 250);
  await child.kill('SIGTERM');
  child = null;
  expect(headSeq(dataDir)).toBe(head);
  expect(digestDifferences(readModelDigest(dataDir), afterRun)).toEqual([]);

  // And a full rebuild gives them again, byte for byte.
  const out: string[] = [];
  expect(await runCli(['projections', 'rebuild'], { out: (l) => out.push(l) }, { DATA_DIR: dataDir })).toBe(0);
  expect(digestDifferences(readModelDigest(dataDir), afterRun)).toEqual([]);
  figures.push(`read models after the killed rebuild and after a full rebuild: identical to those after the run (${Object.values(afterRun).reduce((n, rows) => n + rows.size, 0)} rows); ${((Date.now() - started) / 1000).toFixed(0)} s in all`);
  report(`[billing run crash] ${figures.join('\n  ')}`);
});
