import type { Decider, DomainEvent } from '#shared/decider.js';

/**
 * The retry schedule: the delay before each retry after a failed attempt (attempt 1 is sent as
 * soon as the event is in the feed). Ten attempts over about three days (5 s, 5 min, 30 min, 2 h,
 * 5 h, 10 h, 14 h, 20 h, 20 h: 71.6 hours from the first attempt to the last), each delay
 * stretched by a jitter of up to +20 % so that retries of many events do not arrive at once.
 */
export const RETRY_SCHEDULE_MS: readonly number[] = [5e3, 300e3, 1800e3, 2 * 3600e3, 5 * 3600e3, 10 * 3600e3, 14 * 3600e3, 20 * 3600e3, 20 * 3600e3];
export const JITTER = 0.2;

export type DeliveryStatus = 'new' | 'pending' | 'succeeded' | 'failed';

export interface DeliveryState {
  status: DeliveryStatus;
  /** Attempts made since the delivery was (re)queued: the position in the retry schedule. */
  step: number;
  /** Every attempt ever made (the attempt number in the delivery log). */
  attempts: number;
  next_attempt_at: string | null;
}

/** What came of one POST: a 2xx within the timeout, or not (status code, timeout, refused, TLS…). */
export interface AttemptOutcome {
  ok: boolean;
  status_code: number | null;
  error: string | null;
}

export type DeliveryCommand =
  /** The event is in the feed and the endpoint wants it: send it now. */
  | { type: 'QueueDelivery'; now: Date }
  /** On demand (re-send): send it now with a fresh retry schedule, whatever became of it before. */
  | { type: 'ResendDelivery'; now: Date }
  /** An attempt ended; `jitter` in [0, 1) is drawn by the caller (pure here). */
  | { type: 'RecordAttempt'; now: Date; outcome: AttemptOutcome; jitter: number; schedule?: readonly number[] };

export type DeliveryQueued = DomainEvent<'delivery.queued', { next_attempt_at: string; resend: boolean }>;
export type DeliverySucceeded = DomainEvent<'delivery.succeeded', { attempt: number; at: string }>;
export type DeliveryRetryScheduled = DomainEvent<'delivery.retry_scheduled', { attempt: number; next_attempt_at: string }>;
/** The last attempt of the schedule failed: the delivery is failed and the endpoint is to be disabled. */
export type DeliveryGaveUp = DomainEvent<'delivery.gave_up', { attempt: number; at: string; disable_endpoint: true }>;
export type DeliveryEvent = DeliveryQueued | DeliverySucceeded | DeliveryRetryScheduled | DeliveryGaveUp;

/**
 * The scheduling decisions of one event's delivery to one endpoint: when to try, when to retry,
 * when to give up. Pure; the delivery worker keeps the state in its delivery document (these
 * facts are operational, not part of the public feed, so they are not appended to the event store).
 */
export const deliveryDecider: Decider<DeliveryCommand, DeliveryState, DeliveryEvent> = {
  initialState: { status: 'new', step: 0, attempts: 0, next_attempt_at: null },

  decide(command, state) {
    switch (command.type) {
      case 'QueueDelivery':
        return state.status === 'new' ? [{ type: 'delivery.queued', data: { next_attempt_at: command.now.toISOString(), resend: false } }] : [];
      case 'ResendDelivery':
        return [{ type: 'delivery.queued', data: { next_attempt_at: command.now.toISOString(), resend: true } }];
      case 'RecordAttempt': {
        if (state.status !== 'pending') return [];
        const attempt = state.attempts + 1;
        if (command.outcome.ok) return [{ type: 'delivery.succeeded', data: { attempt, at: command.now.toISOString() } }];
        const schedule = command.schedule ?? RETRY_SCHEDULE_MS;
        const delay = schedule[state.step];
        if (delay === undefined) return [{ type: 'delivery.gave_up', data: { attempt, at: command.now.toISOString(), disable_endpoint: true } }];
        const jitter = Math.min(Math.max(command.jitter, 0), 1);
        const next = command.now.getTime() + Math.round(delay * (1 + JITTER * jitter));
        return [{ type: 'delivery.retry_scheduled', data: { attempt, next_attempt_at: new Date(next).toISOString() } }];
      }
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'delivery.queued':
        return { ...state, status: 'pending', step: 0, next_attempt_at: event.data.next_attempt_at };
      case 'delivery.succeeded':
        return { ...state, status: 'succeeded', attempts: event.data.attempt, step: state.step + 1, next_attempt_at: null };
      case 'delivery.retry_scheduled':
        return { ...state, attempts: event.data.attempt, step: state.step + 1, next_attempt_at: event.data.next_attempt_at };
      case 'delivery.gave_up':
        return { ...state, status: 'failed', attempts: event.data.attempt, step: state.step + 1, next_attempt_at: null };
      default:
        return state;
    }
  },
};
