import { type Decider, type DomainEvent } from '#shared/decider.js';
import { invalidParam, invalidState, missingParam, notFound } from '#shared/errors.js';
import { type Owner, ownedBy } from '#shared/owner.js';
import { checkEnabledEvents } from './webhook-endpoint.decider.js';

export type ReplayStatus = 'running' | 'completed' | 'canceled';

/**
 * One bound of a replay as resolved: an event of the feed (its position, exclusive for `from`,
 * inclusive for `to`), or a time (compared with the events' `created`: inclusive both ways).
 */
export interface ReplayBound {
  /** What the caller gave: `evt_…` or an ISO 8601 time (normalised). */
  value: string;
  seq: string | null;
  time: string | null;
}

/** An `evt_` the caller named, as the feed has it (null: not an event of this account and mode). */
export interface FeedEventRef {
  seq: string;
}

export interface ReplayInput {
  from?: unknown;
  to?: unknown;
  types?: unknown;
}

export type WebhookReplayCommand =
  /**
   * `endpoint`: the endpoint as the read model has it (null: none of this owner). `events`: the
   * `evt_` ids of `from`/`to` looked up in the feed by the handler (the decider stays pure).
   */
  | {
      type: 'StartWebhookReplay';
      owner: Owner;
      replayId: string;
      endpoint: { id: string; enabled_events: string[]; status: string } | null;
      endpointId: string;
      input: ReplayInput;
      events: Readonly<Record<string, FeedEventRef | null>>;
      now: Date;
    }
  | { type: 'CancelWebhookReplay'; owner: Owner; replayId: string; endpointId: string; now: Date }
  /** The replay worker walked past its last event. */
  | { type: 'CompleteWebhookReplay'; replayId: string; delivered: number; now: Date };

export type WebhookReplayCreated = DomainEvent<
  'webhook_replay.created',
  { id: string; account_id: string; is_test: boolean; created_at: string; endpoint: string; from: ReplayBound; to: ReplayBound | null; types: string[] }
>;
export type WebhookReplayCanceled = DomainEvent<'webhook_replay.canceled', { id: string; canceled_at: string }>;
export type WebhookReplayCompleted = DomainEvent<'webhook_replay.completed', { id: string; completed_at: string; delivered: number }>;
export type WebhookReplayEvent = WebhookReplayCreated | WebhookReplayCanceled | WebhookReplayCompleted;

export interface WebhookReplayState {
  exists: boolean;
  owner: Owner | null;
  endpoint: string | null;
  status: ReplayStatus | null;
}

export const webhookReplayStream = (id: string) => `webhookreplay-${id}`;

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

function bound(param: 'from' | 'to', value: unknown, events: Readonly<Record<string, FeedEventRef | null>>): ReplayBound {
  if (typeof value !== 'string' || value === '') throw invalidParam(param, `${param} must be an event id (evt_…) or an ISO 8601 time`);
  if (value.startsWith('evt_')) {
    const ref = events[value];
    if (!ref) throw notFound('event', value, param);
    return { value, seq: ref.seq, time: null };
  }
  const ms = ISO_TIME.test(value) ? Date.parse(value) : NaN;
  if (!Number.isFinite(ms)) throw invalidParam(param, `${param} must be an event id (evt_…) or an ISO 8601 time such as 2026-01-31T00:00:00Z`);
  const time = new Date(ms).toISOString();
  return { value: time, seq: null, time };
}

/**
 * A replay of an account's `evt_` feed to one webhook endpoint (streams `webhookreplay-whr_…`):
 * from a cursor (`evt_`, exclusive) or a time, up to an optional bound, of some event types (by
 * default the endpoint's `enabled_events`). Its progress (cursor, delivered) is operational and
 * kept by the replay worker beside the delivery log, not in events; these facts are the replay's
 * life: started, canceled, completed. Not part of the public feed.
 */
export const webhookReplayDecider: Decider<WebhookReplayCommand, WebhookReplayState, WebhookReplayEvent> = {
  initialState: { exists: false, owner: null, endpoint: null, status: null },

  decide(command, state) {
    switch (command.type) {
      case 'StartWebhookReplay': {
        if (state.exists) throw invalidState(`Webhook replay ${command.replayId} already exists`);
        const { input, owner, endpoint } = command;
        if (!endpoint) throw notFound('webhook_endpoint', command.endpointId);
        if (input.from === undefined || input.from === null) throw missingParam('from');
        const from = bound('from', input.from, command.events);
        const to = input.to === undefined || input.to === null ? null : bound('to', input.to, command.events);
        if (to) {
          if (from.seq !== null && to.seq !== null && to.seq <= from.seq) throw invalidParam('to', 'to must be an event after from');
          if (from.time !== null && to.time !== null && to.time < from.time) throw invalidParam('to', 'to must not be before from');
        }
        const types = input.types === undefined || input.types === null ? endpoint.enabled_events : checkEnabledEvents(input.types);
        return [
          {
            type: 'webhook_replay.created',
            data: { id: command.replayId, account_id: owner.accountId, is_test: owner.mode === 'test', created_at: command.now.toISOString(), endpoint: endpoint.id, from, to, types },
          },
        ];
      }
      case 'CancelWebhookReplay': {
        if (!ownedBy(state, command.owner) || state.endpoint !== command.endpointId) throw notFound('webhook_replay', command.replayId);
        if (state.status === 'canceled') return [];
        if (state.status === 'completed') throw invalidState(`Webhook replay ${command.replayId} has completed: there is nothing to cancel`);
        return [{ type: 'webhook_replay.canceled', data: { id: command.replayId, canceled_at: command.now.toISOString() } }];
      }
      case 'CompleteWebhookReplay':
        if (state.status !== 'running') return [];
        return [{ type: 'webhook_replay.completed', data: { id: command.replayId, completed_at: command.now.toISOString(), delivered: command.delivered } }];
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'webhook_replay.created':
        return { exists: true, owner: { accountId: event.data.account_id, mode: event.data.is_test ? 'test' : 'live' }, endpoint: event.data.endpoint, status: 'running' };
      case 'webhook_replay.canceled':
        return { ...state, status: 'canceled' };
      case 'webhook_replay.completed':
        return { ...state, status: 'completed' };
      default:
        return state;
    }
  },
};
