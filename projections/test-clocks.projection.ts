import {
  type TestClockCreated,
  type TestClockEvent,
  type TestClockFields,
  applyTestClockEvent,
} from '#test-clocks/domain/test-clock.decider.js';
import type { Projection } from '#projection-runtime/projection.js';
import type { TestClockDoc } from '#test-clocks/read-models/test-clock.read-model.js';
import { newOwnedDoc, TENANT_INDEXES } from '#platform/owned-doc.js';

/** Test clocks as GET /v1/test_helpers/test_clocks serves them (streams `testclock-clock_…`). */
export const testClocksProjection: Projection<TestClockDoc> = {
  name: 'test_clocks',
  category: 'testclock',
  object: 'test_clock',
  collection: 'test_clocks',
  collections: [{ name: 'test_clocks', indexes: TENANT_INDEXES }],
  documentIds: (e) => (e.type.startsWith('test_clock.') && e.streamId.startsWith('testclock-') ? [String(e.data.id)] : []),
  project(doc, event) {
    const e = event as unknown as TestClockEvent;
    switch (e.type) {
      case 'test_clock.created': {
        const { account_id, created_at, id, is_test, name, frozen_time }: TestClockCreated['data'] = e.data;
        const fields: TestClockFields = { name, frozen_time, status: 'ready' };
        return newOwnedDoc('test_clock', { id, account_id, is_test, created_at }, fields) as TestClockDoc;
      }
      case 'test_clock.advancing':
      case 'test_clock.ready':
        return doc && applyTestClockEvent(doc, e);
      case 'test_clock.deleted':
        return doc && { ...doc, _deleted: true };
      default:
        return doc;
    }
  },
};
