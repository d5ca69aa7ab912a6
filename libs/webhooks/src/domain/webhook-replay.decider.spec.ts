import { describe, expect, test } from '@jest/globals';
import { given } from '#shared/testing/given.js';
import { type WebhookReplayCommand, type WebhookReplayEvent, webhookReplayDecider } from './webhook-replay.decider.js';

const now = new Date('2026-11-23T10:00:00.000Z');
const owner = { accountId: 'acct_1', mode: 'test' as const };
const endpoint = { id: 'we_1', enabled_events: ['subscription.*'], status: 'enabled' };
const start = (input: Record<string, unknown>, events: Record<string, { seq: string } | null> = {}): WebhookReplayCommand => ({
  type: 'StartWebhookReplay',
  owner,
  replayId: 'whr_1',
  endpoint,
  endpointId: 'we_1',
  input,
  events,
  now,
});
const created: WebhookReplayEvent = {
  type: 'webhook_replay.created',
  data: {
    id: 'whr_1',
    account_id: 'acct_1',
    is_test: true,
    created_at: now.toISOString(),
    endpoint: 'we_1',
    from: { value: 'evt_a', seq: '00000010', time: null },
    to: null,
    types: ['subscription.*'],
  },
};

describe('webhook replay decider', () => {
  test('start from an evt_ cursor: its feed position, the endpoint\'s enabled_events by default', () => {
    given(webhookReplayDecider).when(start({ from: 'evt_a' }, { evt_a: { seq: '00000010' } })).then([created]);
  });

  test('start from a time to an event, of given types', () => {
    given(webhookReplayDecider)
      .when(start({ from: '2026-01-01T00:00:00-05:00', to: 'evt_b', types: ['charge.paid'] }, { evt_b: { seq: '00000020' } }))
      .then((events) =>
        expect(events[0].data).toMatchObject({
          from: { value: '2026-01-01T05:00:00.000Z', seq: null, time: '2026-01-01T05:00:00.000Z' },
          to: { value: 'evt_b', seq: '00000020', time: null },
          types: ['charge.paid'],
        }),
      );
  });

  test('refuses: no from, an unknown event, a bad time, to before from, unknown types, another owner\'s endpoint', () => {
    given(webhookReplayDecider).when(start({})).thenRejects('parameter_missing', 'from');
    given(webhookReplayDecider).when(start({ from: 'evt_x' }, { evt_x: null })).thenRejects('resource_missing', 'from');
    given(webhookReplayDecider).when(start({ from: 'yesterday' })).thenRejects('parameter_invalid', 'from');
    given(webhookReplayDecider).when(start({ from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' })).thenRejects('parameter_invalid', 'to');
    given(webhookReplayDecider).when(start({ from: 'evt_b', to: 'evt_a' }, { evt_a: { seq: '1' }, evt_b: { seq: '2' } })).thenRejects('parameter_invalid', 'to');
    given(webhookReplayDecider).when(start({ from: 'evt_a', types: ['nonsense.x'] }, { evt_a: { seq: '1' } })).thenRejects('parameter_invalid', 'enabled_events');
    given(webhookReplayDecider).when({ ...start({ from: 'evt_a' }, { evt_a: { seq: '1' } }), endpoint: null } as WebhookReplayCommand).thenRejects('resource_missing');
  });

  test('cancel a running replay once; a completed one cannot be; another owner gets a 404', () => {
    const cancel: WebhookReplayCommand = { type: 'CancelWebhookReplay', owner, replayId: 'whr_1', endpointId: 'we_1', now };
    given(webhookReplayDecider, [created]).when(cancel).then([{ type: 'webhook_replay.canceled', data: { id: 'whr_1', canceled_at: now.toISOString() } }]);
    given(webhookReplayDecider, [created, { type: 'webhook_replay.canceled', data: { id: 'whr_1', canceled_at: now.toISOString() } }]).when(cancel).then([]);
    given(webhookReplayDecider, [created, { type: 'webhook_replay.completed', data: { id: 'whr_1', completed_at: now.toISOString(), delivered: 3 } }]).when(cancel).thenRejects('invalid_state');
    given(webhookReplayDecider, [created]).when({ ...cancel, owner: { accountId: 'acct_2', mode: 'test' } }).thenRejects('resource_missing');
    given(webhookReplayDecider, [created]).when({ ...cancel, endpointId: 'we_2' }).thenRejects('resource_missing');
  });

  test('complete: once, only while running', () => {
    const complete: WebhookReplayCommand = { type: 'CompleteWebhookReplay', replayId: 'whr_1', delivered: 4, now };
    given(webhookReplayDecider, [created]).when(complete).then([{ type: 'webhook_replay.completed', data: { id: 'whr_1', completed_at: now.toISOString(), delivered: 4 } }]);
    given(webhookReplayDecider, [created, { type: 'webhook_replay.canceled', data: { id: 'whr_1', canceled_at: now.toISOString() } }]).when(complete).then([]);
  });
});
