import { describe, expect, test } from '@jest/globals';
import { given } from '#shared/testing/given.js';
import { fold } from '#shared/decider.js';
import { type TestClockCommand, type TestClockEvent, testClockDecider } from './test-clock.decider.js';

const now = new Date('2026-11-23T10:00:00.000Z');
const owner = { accountId: 'acct_1', mode: 'test' as const };
const clockId = 'clock_1';
const T0 = '2026-01-31T12:00:00.000Z';
const T1 = '2026-03-01T12:00:00.000Z';
const T2 = '2026-04-01T12:00:00.000Z';

const created: TestClockEvent = {
  type: 'test_clock.created',
  data: { id: clockId, account_id: 'acct_1', is_test: true, created_at: now.toISOString(), name: 'Renewals', frozen_time: T0 },
};
const advancing = (from: string, to: string): TestClockEvent => ({ type: 'test_clock.advancing', data: { id: clockId, from, to } });
const ready = (frozen_time: string): TestClockEvent => ({ type: 'test_clock.ready', data: { id: clockId, frozen_time } });
const deleted: TestClockEvent = { type: 'test_clock.deleted', data: { id: clockId, deleted_at: now.toISOString() } };

const create = (frozen_time: unknown, name?: unknown, who = owner): TestClockCommand => ({
  type: 'CreateTestClock',
  owner: who,
  clockId,
  frozen_time: frozen_time as string,
  name: name as string | undefined,
  now,
});
const advance = (frozen_time: unknown, who: { accountId: string; mode: 'test' | 'live' } = owner): TestClockCommand => ({
  type: 'AdvanceTestClock',
  owner: who,
  clockId,
  frozen_time: frozen_time as string,
  now,
});
const finish = (frozen_time: string): TestClockCommand => ({ type: 'FinishAdvance', owner, clockId, frozen_time, now });
const remove = (who: { accountId: string; mode: 'test' | 'live' } = owner): TestClockCommand => ({ type: 'DeleteTestClock', owner: who, clockId, now });

describe('test clock decider: create', () => {
  test('a new clock, ready at its frozen time (ISO with milliseconds), name trimmed', () => {
    given(testClockDecider).when(create('2026-01-31T12:00:00Z', '  Renewals ')).then([created]);
    const state = fold(testClockDecider, [created]);
    expect(state.fields).toEqual({ name: 'Renewals', frozen_time: T0, status: 'ready' });
  });

  test('the name is optional (null)', () => {
    given(testClockDecider)
      .when(create(T0))
      .then(([e]) => expect(e.data).toMatchObject({ name: null, frozen_time: T0 }));
  });

  test('refuses a live key (403), a missing or malformed frozen_time, a bad name', () => {
    expect(given(testClockDecider).when(create(T0, undefined, { accountId: 'acct_1', mode: 'live' as never })).thenRejects('test_mode_only').status).toBe(403);
    given(testClockDecider).when(create(undefined)).thenRejects('parameter_missing', 'frozen_time');
    given(testClockDecider).when(create('yesterday')).thenRejects('parameter_invalid', 'frozen_time');
    given(testClockDecider).when(create(1767182400)).thenRejects('parameter_invalid', 'frozen_time');
    given(testClockDecider).when(create('1969-12-31T23:59:59Z')).thenRejects('parameter_invalid', 'frozen_time');
    given(testClockDecider).when(create(T0, '  ')).thenRejects('parameter_invalid', 'name');
    given(testClockDecider).when(create(T0, 'x'.repeat(301))).thenRejects('parameter_invalid', 'name');
  });

  test('a clock id is created once', () => {
    given(testClockDecider, [created]).when(create(T0)).thenRejects('invalid_state');
  });
});

describe('test clock decider: advance', () => {
  test('advancing records from and to; the clock is advancing, its frozen time unchanged until ready', () => {
    given(testClockDecider, [created]).when(advance(T1)).then([advancing(T0, T1)]);
    const state = fold(testClockDecider, [created, advancing(T0, T1)]);
    expect(state.fields).toMatchObject({ status: 'advancing', frozen_time: T0 });
    expect(state.advancing_to).toBe(T1);
  });

  test('finishing makes it ready at the target', () => {
    given(testClockDecider, [created, advancing(T0, T1)]).when(finish(T1)).then([ready(T1)]);
    const state = fold(testClockDecider, [created, advancing(T0, T1), ready(T1)]);
    expect(state.fields).toMatchObject({ status: 'ready', frozen_time: T1 });
    expect(state.advancing_to).toBeNull();
  });

  test('the target must be after the current frozen time', () => {
    given(testClockDecider, [created]).when(advance(T0)).thenRejects('parameter_invalid', 'frozen_time');
    given(testClockDecider, [created]).when(advance('2025-01-01T00:00:00Z')).thenRejects('parameter_invalid', 'frozen_time');
    given(testClockDecider, [created, advancing(T0, T1), ready(T1)]).when(advance(T1)).thenRejects('parameter_invalid', 'frozen_time');
    given(testClockDecider, [created]).when(advance('soon')).thenRejects('parameter_invalid', 'frozen_time');
  });

  test('while advancing: an earlier target is refused (409); the same target resumes without a new fact; a later one re-targets', () => {
    const past = [created, advancing(T0, T1)];
    given(testClockDecider, past).when(advance('2026-02-15T00:00:00Z')).thenRejects('invalid_state', 'frozen_time');
    given(testClockDecider, past).when(advance(T1)).then([]);
    given(testClockDecider, past).when(advance(T2)).then([advancing(T0, T2)]);
  });

  test('finishing is idempotent and yields to a later target', () => {
    given(testClockDecider, [created, advancing(T0, T1), ready(T1)]).when(finish(T1)).then([]);
    given(testClockDecider, [created, advancing(T0, T1), advancing(T0, T2)]).when(finish(T1)).then([]);
    given(testClockDecider, [created, advancing(T0, T1), advancing(T0, T2)]).when(finish(T2)).then([ready(T2)]);
  });

  test("another account's clock, a live key, a deleted clock, no such clock", () => {
    given(testClockDecider, [created]).when(advance(T1, { accountId: 'acct_2', mode: 'test' })).thenRejects('resource_missing');
    given(testClockDecider, [created]).when(advance(T1, { accountId: 'acct_1', mode: 'live' })).thenRejects('test_mode_only');
    given(testClockDecider, [created, deleted]).when(advance(T1)).thenRejects('resource_missing');
    given(testClockDecider).when(advance(T1)).thenRejects('resource_missing');
    given(testClockDecider, [created, advancing(T0, T1), deleted]).when(finish(T1)).then([]);
  });
});

describe('test clock decider: delete', () => {
  test('deletes once, ready or advancing', () => {
    given(testClockDecider, [created]).when(remove()).then([deleted]);
    given(testClockDecider, [created, advancing(T0, T1)]).when(remove()).then([deleted]);
    given(testClockDecider, [created, deleted]).when(remove()).thenRejects('resource_missing');
    given(testClockDecider, [created]).when(remove({ accountId: 'acct_2', mode: 'test' })).thenRejects('resource_missing');
  });
});
