import { describe, expect, test } from '@jest/globals';
import { fold } from '#shared/decider.js';
import { given } from '#shared/testing/given.js';
import { type PaymentMethodCommand, type PaymentMethodCreated, type PaymentMethodEvent, paymentMethodDecider } from './payment-method.decider.js';

const now = new Date('2026-01-31T10:00:00.000Z');
const owner = { accountId: 'acct_1', mode: 'test' as const };
type Owner = { accountId: string; mode: 'test' | 'live' };
const id = 'pm_1';

const visa = { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030 };
type CreateFields = Extract<PaymentMethodCommand, { type: 'CreatePaymentMethod' }>['fields'];
const create = (fields: Partial<CreateFields> = {}, o: Owner = owner): PaymentMethodCommand => ({
  type: 'CreatePaymentMethod',
  owner: o,
  paymentMethodId: id,
  fields: { customer: 'cus_1', gateway: 'gateway_a', type: 'card', card: visa, wallet: null, source: 'payment', ...fields },
  token: 'simtok_approve_abc',
  now,
});
const update = (changes: Extract<PaymentMethodCommand, { type: 'UpdatePaymentMethod' }>['changes'], o: Owner = owner): PaymentMethodCommand => ({
  type: 'UpdatePaymentMethod',
  owner: o,
  paymentMethodId: id,
  changes,
  now,
});
const remove = (o: Owner = owner): PaymentMethodCommand => ({ type: 'DeletePaymentMethod', owner: o, paymentMethodId: id, now });

const created: PaymentMethodCreated = {
  type: 'payment_method.created',
  data: {
    id,
    account_id: 'acct_1',
    is_test: true,
    created_at: '2026-01-31T10:00:00.000Z',
    customer: 'cus_1',
    gateway: 'gateway_a',
    type: 'card',
    card: visa,
    wallet: null,
    fingerprint: null,
    source: 'payment',
    status: 'active',
    meta_data: {},
    token: 'simtok_approve_abc',
  },
};
const walletCreated: PaymentMethodCreated = { ...created, data: { ...created.data, type: 'wallet_a', card: null, wallet: { account_last4: '1234' } } };
const deleted: PaymentMethodEvent = { type: 'payment_method.deleted', data: { id, customer: 'cus_1', deleted_at: now.toISOString() } };

describe('payment method: create', () => {
  test('a tokenizable method is stored active, with its token kept in the event', () => {
    given(paymentMethodDecider).when(create()).then([created]);
    const state = fold(paymentMethodDecider, [created]);
    expect(state).toEqual({
      exists: true,
      owner,
      token: 'simtok_approve_abc',
      fields: { customer: 'cus_1', gateway: 'gateway_a', type: 'card', card: visa, wallet: null, fingerprint: null, source: 'payment', status: 'active', meta_data: {} },
    });
  });

  test('wallets and imported methods, with meta_data; a live key makes a live method', () => {
    given(paymentMethodDecider)
      .when(create({ type: 'wallet_b', card: null, wallet: { account_last4: '1234' }, source: 'migration', meta_data: { legacy_id: '77' } }, { accountId: 'acct_1', mode: 'live' }))
      .then((events) =>
        expect(events[0].data).toMatchObject({ type: 'wallet_b', card: null, wallet: { account_last4: '1234' }, source: 'migration', meta_data: { legacy_id: '77' }, is_test: false }),
      );
  });

  test('a replayed save changes nothing', () => {
    given(paymentMethodDecider, [created]).when(create()).then([]);
  });

  test('refuses an unknown gateway, a method that cannot be stored, a method the gateway does not offer, bad meta_data', () => {
    const e1 = given(paymentMethodDecider).when(create({ gateway: 'gateway_z' })).thenRejects('parameter_invalid', 'gateway');
    expect(e1.message).toBe('Unknown gateway gateway_z');
    const e2 = given(paymentMethodDecider).when(create({ type: 'pse', card: null })).thenRejects('parameter_invalid', 'type');
    expect(e2.message).toBe('pse payment methods cannot be stored; only card, wallet_a and wallet_b can');
    const e3 = given(paymentMethodDecider).when(create({ gateway: 'gateway_b', type: 'wallet_a', card: null })).thenRejects('parameter_invalid', 'type');
    expect(e3.message).toBe('gateway_b does not offer wallet_a');
    given(paymentMethodDecider).when(create({ meta_data: { k: 'v'.repeat(256) } })).thenRejects('parameter_invalid', 'meta_data[k]');
  });
});

describe('payment method: update', () => {
  test('card expiry and meta_data change; meta_data merges ("" removes a key)', () => {
    given(paymentMethodDecider, [created])
      .when(update({ exp_month: 3, exp_year: 2031, meta_data: { a: '1' } }))
      .then([{ type: 'payment_method.updated', data: { id, customer: 'cus_1', changes: { exp_month: 3, exp_year: 2031, meta_data: { a: '1' } } } }]);
    const state = fold(paymentMethodDecider, [
      { ...created, data: { ...created.data, meta_data: { a: '1', b: '2' } } },
      { type: 'payment_method.updated', data: { id, customer: 'cus_1', changes: { exp_year: 2031, meta_data: { a: '', c: '3' } } } },
    ]);
    expect(state.fields).toMatchObject({ card: { ...visa, exp_year: 2031 }, meta_data: { b: '2', c: '3' } });
  });

  test('nothing to change records nothing', () => {
    given(paymentMethodDecider, [created]).when(update({})).then([]);
  });

  test('only cards have an expiry date', () => {
    const e = given(paymentMethodDecider, [walletCreated]).when(update({ exp_month: 3 })).thenRejects('parameter_invalid', 'exp_month');
    expect(e.message).toBe('Only card payment methods have an expiry date');
    given(paymentMethodDecider, [walletCreated]).when(update({ exp_year: 2031 })).thenRejects('parameter_invalid', 'exp_year');
    given(paymentMethodDecider, [walletCreated]).when(update({ meta_data: { a: '1' } })).then((events) => expect(events).toHaveLength(1));
  });

  test('refuses an expiry out of range and bad meta_data', () => {
    expect(given(paymentMethodDecider, [created]).when(update({ exp_month: 13 })).thenRejects('parameter_invalid', 'exp_month').message).toBe('exp_month must be 1 to 12');
    given(paymentMethodDecider, [created]).when(update({ exp_month: 0 })).thenRejects('parameter_invalid', 'exp_month');
    given(paymentMethodDecider, [created]).when(update({ exp_month: 1.5 })).thenRejects('parameter_invalid', 'exp_month');
    expect(given(paymentMethodDecider, [created]).when(update({ exp_year: 31 })).thenRejects('parameter_invalid', 'exp_year').message).toBe('exp_year must be a four-digit year');
    given(paymentMethodDecider, [created]).when(update({ meta_data: { k: 'v'.repeat(256) } })).thenRejects('parameter_invalid', 'meta_data[k]');
  });
});

describe('payment method: delete', () => {
  test('detaches the method; deleting again changes nothing', () => {
    given(paymentMethodDecider, [created]).when(remove()).then([deleted]);
    expect(fold(paymentMethodDecider, [created, deleted]).fields?.status).toBe('detached');
    given(paymentMethodDecider, [created, deleted]).when(remove()).then([]);
  });

  test('a detached method cannot be updated (409 naming the status)', () => {
    const e = given(paymentMethodDecider, [created, deleted]).when(update({ exp_month: 3 })).thenRejects('invalid_state');
    expect(e.message).toBe('Cannot update payment method pm_1: its status is detached');
    expect(e.status).toBe(409);
  });
});

describe('payment method: tenancy', () => {
  test('a missing method, or one of another account or mode, is not found', () => {
    const e = given(paymentMethodDecider).when(update({ exp_month: 3 })).thenRejects('resource_missing', 'id');
    expect(e.message).toBe("No such payment method: 'pm_1'");
    given(paymentMethodDecider, [created]).when(remove({ accountId: 'acct_2', mode: 'test' })).thenRejects('resource_missing', 'id');
    given(paymentMethodDecider, [created]).when(update({ exp_month: 3 }, { accountId: 'acct_1', mode: 'live' })).thenRejects('resource_missing', 'id');
  });
});
