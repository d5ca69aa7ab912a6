import { describe, expect, test } from '@jest/globals';
import { stateAfterFrom } from './dashboard-timeline.js';

const entry = (id: string) => ({ data: { object: { id } } });

describe('the timeline\'s "state after this event" links', () => {
  test('start at the subscription\'s own first event: a checkout session completed before it gets none', () => {
    expect(stateAfterFrom([entry('cs_1'), entry('sub_1'), entry('col_1'), entry('cs_1')], 'sub_1')).toBe(1);
    expect(stateAfterFrom([entry('sub_1'), entry('cs_1')], 'sub_1')).toBe(0);
    expect(stateAfterFrom([entry('cs_1')], 'sub_1')).toBe(-1);
  });
});
