import { describe, expect, test } from '@jest/globals';
import { given } from '#shared/testing/given.js';
import { addressAllowed, checkEndpointUrl } from './url-policy.js';
import {
  eventEnabled,
  signingSecrets,
  type WebhookEndpointCommand,
  type WebhookEndpointEvent,
  webhookEndpointDecider,
} from './webhook-endpoint.decider.js';

const now = new Date('2026-11-23T10:00:00.000Z');
const test_ = { accountId: 'acct_1', mode: 'test' as const };
const live = { accountId: 'acct_1', mode: 'live' as const };
const create = (input: Record<string, unknown>, owner: { accountId: string; mode: 'test' | 'live' } = test_): WebhookEndpointCommand => ({ type: 'CreateWebhookEndpoint', owner, endpointId: 'we_1', input, secretRef: 'whsec:we_1:a', now });
const created: WebhookEndpointEvent = {
  type: 'webhook_endpoint.created',
  data: { id: 'we_1', account_id: 'acct_1', is_test: true, created_at: now.toISOString(), url: 'http://localhost:4000/hook', enabled_events: ['*'], description: null, status: 'enabled', meta_data: {}, secret_ref: 'whsec:we_1:a' },
};

describe('webhook endpoint decider', () => {
  test('create: url, enabled_events, enabled, the sealed secret\'s vault id in the event (never the secret)', () => {
    given(webhookEndpointDecider).when(create({ url: 'http://localhost:4000/hook', enabled_events: ['*'] })).then([created]);
  });

  test('create refuses a missing url, bad wildcards and a status', () => {
    given(webhookEndpointDecider).when(create({ enabled_events: ['*'] })).thenRejects('parameter_missing', 'url');
    given(webhookEndpointDecider).when(create({ url: 'http://localhost/', enabled_events: ['sub*'] })).thenRejects('parameter_invalid', 'enabled_events');
    given(webhookEndpointDecider).when(create({ url: 'http://localhost/', enabled_events: [] })).thenRejects('parameter_invalid', 'enabled_events');
    given(webhookEndpointDecider).when(create({ url: 'http://localhost/', enabled_events: ['*'], status: 'disabled' })).thenRejects('parameter_invalid', 'status');
  });

  test('enabled_events: only types of the public feed, wildcards of their prefixes, or *; an unknown one is refused by name', () => {
    for (const unknown of ['nonsense.type', 'nonsense.*', 'subscription.nonsense', 'account.created', 'delivery.*']) {
      const error = given(webhookEndpointDecider).when(create({ url: 'http://localhost/', enabled_events: ['charge.paid', unknown] })).thenRejects('parameter_invalid', 'enabled_events');
      expect(error.message).toContain(`'${unknown}'`);
    }
    given(webhookEndpointDecider)
      .when(create({ url: 'http://localhost/', enabled_events: ['subscription.*', 'charge.paid', 'invoice.issued', '*'] }))
      .then((events) => expect(events[0].data).toMatchObject({ enabled_events: ['subscription.*', 'charge.paid', 'invoice.issued', '*'] }));
    given(webhookEndpointDecider, [created])
      .when({ type: 'UpdateWebhookEndpoint', owner: test_, endpointId: 'we_1', input: { enabled_events: ['nonsense.type'] }, now })
      .thenRejects('parameter_invalid', 'enabled_events');
  });

  test('live endpoints: https only, never loopback, private or link-local', () => {
    for (const url of ['http://example.com/h', 'https://localhost/h', 'https://127.0.0.1/h', 'https://10.1.2.3/h', 'https://169.254.169.254/latest', 'https://[::1]/h', 'https://[fe80::1]/h', 'https://192.168.1.1/', 'https://[::ffff:10.0.0.1]/']) {
      given(webhookEndpointDecider).when(create({ url, enabled_events: ['*'] }, live)).thenRejects('parameter_invalid', 'url');
    }
    given(webhookEndpointDecider).when(create({ url: 'https://hooks.example.com/h', enabled_events: ['*'] }, live)).then((events) => expect(events).toHaveLength(1));
  });

  test('test endpoints may use http on localhost, nowhere else; private addresses never', () => {
    expect(checkEndpointUrl('http://127.0.0.1:9000/x', 'test')).toBe('http://127.0.0.1:9000/x');
    expect(checkEndpointUrl('http://[::1]:9000/x', 'test')).toBe('http://[::1]:9000/x');
    expect(() => checkEndpointUrl('http://example.com/x', 'test')).toThrow();
    expect(() => checkEndpointUrl('https://10.0.0.1/x', 'test')).toThrow();
    expect(() => checkEndpointUrl('ftp://localhost/x', 'test')).toThrow();
    expect(() => checkEndpointUrl('https://user:pw@example.com/x', 'test')).toThrow();
    expect(addressAllowed('127.0.0.1', 'live')).toBe(false);
    expect(addressAllowed('127.0.0.1', 'test')).toBe(true);
    expect(addressAllowed('172.20.0.1', 'test')).toBe(false);
    expect(addressAllowed('93.184.216.34', 'live')).toBe(true);
  });

  test('wildcards: exact, prefix.*, *', () => {
    expect(eventEnabled(['subscription.*'], 'subscription.created')).toBe(true);
    expect(eventEnabled(['subscription.*'], 'subscription_item.created')).toBe(false);
    expect(eventEnabled(['charge.paid'], 'charge.failed')).toBe(false);
    expect(eventEnabled(['*'], 'anything.at_all')).toBe(true);
  });

  test('rotation: the old secret signs beside the new one until the overlap ends', () => {
    const [rotated] = given(webhookEndpointDecider, [created]).when({ type: 'RotateWebhookSecret', owner: test_, endpointId: 'we_1', secretRef: 'whsec:we_1:b', now }).events();
    expect(rotated).toEqual({
      type: 'webhook_endpoint.secret_rotated',
      data: { id: 'we_1', secret_ref: 'whsec:we_1:b', previous_secret_expires_at: '2026-11-24T10:00:00.000Z', rotated_at: now.toISOString() },
    });
    const state = [created, rotated].reduce(webhookEndpointDecider.evolve, webhookEndpointDecider.initialState);
    const refs = (at: string) => signingSecrets(state.secrets, new Date(at)).map((s) => s.secret_ref);
    expect(refs('2026-11-24T09:59:59.999Z')).toEqual(['whsec:we_1:b', 'whsec:we_1:a']);
    expect(refs('2026-11-24T10:00:00.000Z')).toEqual(['whsec:we_1:b']);
    given(webhookEndpointDecider, [created]).when({ type: 'RotateWebhookSecret', owner: test_, endpointId: 'we_1', secretRef: 'whsec:we_1:b', overlapSeconds: -1, now }).thenRejects('parameter_invalid');
  });

  test('an endpoint made before sealing (its events hold the plain secret) signs with it as before, and a rotation moves it to a sealed one', () => {
    const old: WebhookEndpointEvent = { type: 'webhook_endpoint.created', data: { ...(created.data as object), secret_ref: undefined, secret: 'whsec_plain' } as never };
    delete (old.data as { secret_ref?: string }).secret_ref;
    const [rotated] = given(webhookEndpointDecider, [old]).when({ type: 'RotateWebhookSecret', owner: test_, endpointId: 'we_1', secretRef: 'whsec:we_1:b', overlapSeconds: 60, now }).events();
    const state = [old, rotated].reduce(webhookEndpointDecider.evolve, webhookEndpointDecider.initialState);
    expect(signingSecrets(state.secrets, now)).toEqual([
      { secret_ref: 'whsec:we_1:b', expires_at: null },
      { secret: 'whsec_plain', expires_at: '2026-11-23T10:01:00.000Z' },
    ]);
    expect(signingSecrets(state.secrets, new Date('2026-11-23T10:01:00.000Z'))).toEqual([{ secret_ref: 'whsec:we_1:b', expires_at: null }]);
  });

  test("another account's or mode's endpoint is not found; disabling twice says nothing the second time", () => {
    given(webhookEndpointDecider, [created]).when({ type: 'DeleteWebhookEndpoint', owner: live, endpointId: 'we_1', now }).thenRejects('resource_missing');
    const disable: WebhookEndpointCommand = { type: 'DisableWebhookEndpoint', owner: test_, endpointId: 'we_1', reason: 'delivery_failed', event: 'evt_1', now };
    const [disabled] = given(webhookEndpointDecider, [created]).when(disable).events();
    expect(disabled.type).toBe('webhook_endpoint.disabled');
    given(webhookEndpointDecider, [created, disabled]).when(disable).then([]);
    given(webhookEndpointDecider, [created, disabled]).when({ type: 'UpdateWebhookEndpoint', owner: test_, endpointId: 'we_1', input: { status: 'enabled' }, now }).then([
      { type: 'webhook_endpoint.updated', data: { id: 'we_1', changes: { status: 'enabled' } } },
    ]);
  });
});
