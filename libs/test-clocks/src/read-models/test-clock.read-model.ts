import type { OwnedDoc } from '#platform/read-models.js';
import type { TestClockFields } from '../domain/test-clock.decider.js';

/** A test clock as the `test_clocks` read model holds it. */
export type TestClockDoc = OwnedDoc & TestClockFields & { object: 'test_clock'; created_date: string };
