import { READ_STORE } from '#platform/tokens.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import type { TestApp } from './test-app.js';

/**
 * Replay stays deterministic (after an erasure, a buyer forgotten…): a checkout session's document
 * and its feed entries are the same after a rebuild of `checkout_sessions` as before it. The feed must
 * hold more than one entry of the session, so the comparison is not of nothing.
 */
export async function expectCheckoutSessionSameAfterRebuild(t: TestApp, account: string, sessionId: string): Promise<void> {
  const reads = t.app.get<ReadStore>(READ_STORE);
  const snapshot = async () => ({
    session: await reads.get('checkout_sessions', sessionId),
    feed: await reads.find('events', { where: { _account: account, is_test: true, _object_id: sessionId }, orderBy: { field: '_seq', direction: 'asc' }, limit: 500 }),
  });
  const before = await snapshot();
  expect(before.feed.length).toBeGreaterThan(1);
  await t.app.get(ProjectionEngine).rebuild('checkout_sessions');
  expect(await snapshot()).toEqual(before);
}
