import { Decider, DomainEvent } from '#shared/decider.js';
import { ownedBy } from '#shared/owner.js';
import { DomainError, invalidParam, invalidState, missingParam, notFound } from '#shared/errors.js';
import type { Owner } from '#shared/owner.js';

export type TestClockStatus = 'ready' | 'advancing';

/** The public fields of a test clock (besides `id`, `object`, `created_date`, `is_test`). */
export interface TestClockFields {
  name: string | null;
  /** ISO 8601 with milliseconds, UTC: the time the clock's objects live at. */
  frozen_time: string;
  status: TestClockStatus;
}

export type TestClockCommand =
  | { type: 'CreateTestClock'; owner: Owner; clockId: string; frozen_time: string; name?: string | null; now: Date }
  /** Refused unless after the current frozen time; while advancing, only a resume (the pending target or later). */
  | { type: 'AdvanceTestClock'; owner: Owner; clockId: string; frozen_time: string; now: Date }
  /** The deadlines up to `frozen_time` have run: the clock is ready at that time (nothing when another target took over). */
  | { type: 'FinishAdvance'; owner: Owner; clockId: string; frozen_time: string; now: Date }
  | { type: 'DeleteTestClock'; owner: Owner; clockId: string; now: Date };

export type TestClockCreated = DomainEvent<
  'test_clock.created',
  { id: string; account_id: string; is_test: boolean; created_at: string; name: string | null; frozen_time: string }
>;
export type TestClockAdvancing = DomainEvent<'test_clock.advancing', { id: string; from: string; to: string }>;
export type TestClockReady = DomainEvent<'test_clock.ready', { id: string; frozen_time: string }>;
export type TestClockDeleted = DomainEvent<'test_clock.deleted', { id: string; deleted_at: string }>;
export type TestClockEvent = TestClockCreated | TestClockAdvancing | TestClockReady | TestClockDeleted;

export interface TestClockState {
  exists: boolean;
  deleted: boolean;
  owner: Owner | null;
  fields: TestClockFields | null;
  /** While `advancing`: the target of the advance under way. */
  advancing_to: string | null;
}

export const testClockStream = (clockId: string) => `testclock-${clockId}`;

/** The refusal every test clock endpoint (and any use of a clock) gives a live key. */
export const testClocksTestModeOnly = () =>
  new DomainError('test_mode_only', 'Test clocks are only available with a test key', null, 403);

const MIN_TIME = Date.parse('1970-01-01T00:00:00.000Z');
const MAX_TIME = Date.parse('9999-12-31T23:59:59.999Z');

/** A time as the API sends it (ISO 8601) → ISO 8601 with milliseconds, UTC. */
export function parseFrozenTime(value: unknown, param = 'frozen_time'): string {
  if (value === undefined || value === null) throw missingParam(param);
  if (typeof value !== 'string') throw invalidParam(param, `${param} must be an ISO 8601 timestamp`);
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) throw invalidParam(param, `${param} must be an ISO 8601 timestamp`);
  if (ms < MIN_TIME || ms > MAX_TIME) throw invalidParam(param, `${param} must be between 1970-01-01 and 9999-12-31`);
  return new Date(ms).toISOString();
}

function checkName(name: unknown): string | null {
  if (name === undefined || name === null) return null;
  if (typeof name !== 'string') throw invalidParam('name', 'name must be a string');
  const trimmed = name.trim();
  if (trimmed.length === 0) throw invalidParam('name', 'name must not be empty');
  if (trimmed.length > 300) throw invalidParam('name', 'name must be at most 300 characters long');
  return trimmed;
}

/**
 * Test clocks (test mode only): a frozen time that the objects created on the clock live by. An
 * advance is two facts around the scheduler's run: `test_clock.advancing` (from → to), then, once
 * every deadline up to `to` has run, `test_clock.ready` at `to`. A run that failed leaves the clock
 * `advancing`; advancing again to that target or a later one resumes it.
 */
export const testClockDecider: Decider<TestClockCommand, TestClockState, TestClockEvent> = {
  initialState: { exists: false, deleted: false, owner: null, fields: null, advancing_to: null },

  decide(command, state) {
    if (command.owner.mode !== 'test') throw testClocksTestModeOnly();
    if (command.type === 'CreateTestClock') {
      if (state.exists) throw invalidState(`Test clock ${command.clockId} already exists`);
      const frozen_time = parseFrozenTime(command.frozen_time);
      const name = checkName(command.name);
      return [
        {
          type: 'test_clock.created',
          data: {
            id: command.clockId,
            account_id: command.owner.accountId,
            is_test: true,
            created_at: command.now.toISOString(),
            name,
            frozen_time,
          },
        },
      ];
    }
    if (!ownedBy(state, command.owner)) throw notFound('test_clock', command.clockId);
    const fields = state.fields!;
    switch (command.type) {
      case 'AdvanceTestClock': {
        if (state.deleted) throw notFound('test_clock', command.clockId);
        const target = parseFrozenTime(command.frozen_time);
        if (fields.status === 'advancing') {
          const pending = state.advancing_to!;
          if (target === pending) return []; // a resume: the advance under way already says so
          if (target < pending) {
            throw invalidState(
              `Test clock ${command.clockId} is advancing to ${pending}; advance it to ${pending} or later to resume`,
              'frozen_time',
            );
          }
          return [{ type: 'test_clock.advancing', data: { id: command.clockId, from: fields.frozen_time, to: target } }];
        }
        if (target <= fields.frozen_time) {
          throw invalidParam('frozen_time', `frozen_time must be after the test clock's current frozen_time (${fields.frozen_time})`);
        }
        return [{ type: 'test_clock.advancing', data: { id: command.clockId, from: fields.frozen_time, to: target } }];
      }
      case 'FinishAdvance': {
        if (state.deleted || fields.status !== 'advancing') return [];
        if (state.advancing_to !== parseFrozenTime(command.frozen_time)) return []; // a later advance took over
        return [{ type: 'test_clock.ready', data: { id: command.clockId, frozen_time: state.advancing_to } }];
      }
      case 'DeleteTestClock': {
        if (state.deleted) throw notFound('test_clock', command.clockId);
        return [{ type: 'test_clock.deleted', data: { id: command.clockId, deleted_at: command.now.toISOString() } }];
      }
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'test_clock.created': {
        const { account_id, is_test, name, frozen_time } = event.data;
        return {
          exists: true,
          deleted: false,
          owner: { accountId: account_id, mode: is_test ? 'test' : 'live' },
          fields: { name, frozen_time, status: 'ready' },
          advancing_to: null,
        };
      }
      case 'test_clock.advancing':
        return { ...state, fields: applyTestClockEvent(state.fields!, event), advancing_to: event.data.to };
      case 'test_clock.ready':
        return { ...state, fields: applyTestClockEvent(state.fields!, event), advancing_to: null };
      case 'test_clock.deleted':
        return { ...state, deleted: true };
      default:
        return state;
    }
  },
};

/** Applies a test clock event to its public fields (the projection's and the decider's shared rule). */
export function applyTestClockEvent<F extends TestClockFields>(fields: F, event: TestClockAdvancing | TestClockReady): F {
  return event.type === 'test_clock.advancing'
    ? { ...fields, status: 'advancing' }
    : { ...fields, status: 'ready', frozen_time: event.data.frozen_time };
}
