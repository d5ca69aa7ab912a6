import { afterEach, describe, expect, test } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '#event-store/sqlite-event-store.js';
import { SqliteReadStore } from '#read-store/sqlite-read-store.js';
import { captureLogs } from '#test/support/test-logs.js';
import { InvoicingFollower, type InvoicingEventType } from './invoicing-follower.js';

/** The crash-safe invoicing follower on the embedded stores: what it hands over, from where, and how it survives failures. */
describe('InvoicingFollower', () => {
  // What the follower logs (its retries, the event it gives up on) is kept, and asserted below.
  const logs = captureLogs();
  const open: Array<{ close(): Promise<void> }> = [];
  const followers: InvoicingFollower[] = [];
  afterEach(async () => {
    for (const f of followers.splice(0)) await f.stop();
    for (const s of open.splice(0)) await s.close();
  });

  const stores = () => {
    const dir = mkdtempSync(join(tmpdir(), 'invoicing-follower-'));
    const events = new SqliteEventStore(join(dir, 'events.sqlite'));
    const store = new SqliteReadStore(join(dir, 'read.sqlite'));
    open.push(events, store);
    return { events, store };
  };
  const append = async (events: SqliteEventStore, type: string, id: string, account = 'acct_1') => {
    const r = await events.append(`collection-${id}`, [{ id: randomUUID(), type, data: { id }, metadata: { account_id: account, mode: 'test', occurred_at: new Date().toISOString() } }], 'any');
    return r.position as string;
  };
  const follower = (s: ReturnType<typeof stores>, handle: (type: InvoicingEventType, account: string, id: string) => Promise<void>, options = {}) => {
    const f = new InvoicingFollower(s.events, s.store, { name: 'invoicing:collections', handle: (type, ctx, id) => handle(type, ctx.accountId, id) }, { pollMs: 20, graceMs: 0, retryMs: 10, ...options });
    followers.push(f);
    return f;
  };

  test('hands over collection.created / paid / voided with the owner from the metadata, skips the rest, and resumes from its checkpoint after a stop', async () => {
    const s = stores();
    const seen: string[] = [];
    const first = follower(s, async (type, account, id) => void seen.push(`${type} ${account} ${id}`));
    await first.start();
    await append(s.events, 'collection.created', 'col_a');
    await append(s.events, 'product.created', 'prod_x');
    await first.waitFor(await append(s.events, 'collection.paid', 'col_a'));
    expect(seen).toEqual(['collection.created acct_1 col_a', 'collection.paid acct_1 col_a']);
    await first.stop();
    // Written while no follower ran (the process was down): a new one picks them up from the checkpoint, nothing twice.
    await append(s.events, 'collection.created', 'col_b');
    const last = await append(s.events, 'collection.voided', 'col_b');
    const second = follower(s, async (type, account, id) => void seen.push(`${type} ${account} ${id}`));
    await second.start();
    await second.waitFor(last);
    expect(seen).toEqual(['collection.created acct_1 col_a', 'collection.paid acct_1 col_a', 'collection.created acct_1 col_b', 'collection.voided acct_1 col_b']);
  });

  test('a failing step is retried (the checkpoint stays before it); one that keeps failing is passed after maxAttempts so later collections are still invoiced', async () => {
    const s = stores();
    const attempts = new Map<string, number>();
    const f = follower(
      s,
      async (_type, _account, id) => {
        attempts.set(id, (attempts.get(id) ?? 0) + 1);
        if (id === 'col_flaky' && attempts.get(id)! < 3) throw new Error('store busy');
        if (id === 'col_poison') throw new Error('always');
      },
      { maxAttempts: 4 },
    );
    await f.start();
    await append(s.events, 'collection.created', 'col_flaky');
    await append(s.events, 'collection.created', 'col_poison');
    await f.waitFor(await append(s.events, 'collection.created', 'col_after'));
    expect(Object.fromEntries(attempts)).toEqual({ col_flaky: 3, col_poison: 4, col_after: 1 });
    // Each failure is logged as one to retry, and the event given up on is named.
    expect(logs.claim(/follower failed; will retry .*Error: store busy/)).toHaveLength(2);
    expect(logs.claim(/follower failed; will retry .*Error: always/)).toHaveLength(3);
    expect((await logs.expectError('invoicing follower skips an event that kept failing')).map((e) => e.text)).toEqual([expect.stringMatching(/type=collection\.created collection=col_poison err=Error: always/)]);
  });

  test('the grace: an event is not handed over before graceMs since the follower first saw it', async () => {
    const s = stores();
    const handed: number[] = [];
    const f = follower(s, async () => void handed.push(Date.now()), { graceMs: 400 });
    await f.start();
    const appended = Date.now();
    await f.waitFor(await append(s.events, 'collection.created', 'col_g'));
    expect(handed).toHaveLength(1);
    expect(handed[0] - appended).toBeGreaterThanOrEqual(390);
  });
});
