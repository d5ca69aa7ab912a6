import { describe, expect, test } from '@jest/globals';
import { given } from '#shared/testing/given.js';
import { fold } from '#shared/decider.js';
import { type CustomerCreated, type CustomerEvent, customerDecider, emailKey } from './customer.decider.js';

const now = new Date('2026-11-23T10:00:00.000Z');
const owner = { accountId: 'acct_1', mode: 'test' as const };
const id = 'cus_1';

const created: CustomerCreated = {
  type: 'customer.created',
  data: {
    id,
    account_id: 'acct_1',
    is_test: true,
    created_at: now.toISOString(),
    email: 'Ana@Example.com',
    name: null,
    phone: null,
    document_type: null,
    document_number: null,
    billing_address: null,
    default_payment_method: null,
    meta_data: {},
    test_clock: null,
  },
};

const address = { address_1: 'Calle 100 # 8A-55', address_2: null, city: 'Bogotá', state: 'Cundinamarca', postcode: '110111', country: 'CO' };

describe('customer decider: create', () => {
  test('records every field, defaults the others to null, trims the email but keeps its case', () => {
    given(customerDecider)
      .when({
        type: 'CreateCustomer',
        owner,
        customerId: id,
        now,
        fields: {
          email: '  Ana@Example.com ',
          name: ' Ana Gómez ',
          phone: '+57 300 123 4567',
          document_type: 'CC',
          document_number: '1020304050',
          billing_address: { address_1: 'Calle 100 # 8A-55', city: 'Bogotá', state: 'Cundinamarca', country: 'co' },
          meta_data: { crm: '42' },
        },
      })
      .then([
        {
          type: 'customer.created',
          data: {
            ...created.data,
            name: 'Ana Gómez',
            phone: '+57 300 123 4567',
            document_type: 'CC',
            document_number: '1020304050',
            billing_address: { address_1: 'Calle 100 # 8A-55', address_2: null, city: 'Bogotá', state: 'Cundinamarca', postcode: null, country: 'CO' },
            meta_data: { crm: '42' },
          },
        },
      ]);
  });

  test('a live key creates a live customer', () => {
    given(customerDecider)
      .when({ type: 'CreateCustomer', owner: { accountId: 'acct_1', mode: 'live' }, customerId: id, now, fields: { email: 'a@b.co' } })
      .then((events) => expect(events[0].data).toMatchObject({ is_test: false, email: 'a@b.co', default_payment_method: null }));
  });

  test('test_clock: recorded at creation (null by default); refused with a live key or when not an id', () => {
    given(customerDecider)
      .when({ type: 'CreateCustomer', owner, customerId: id, now, fields: { email: 'Ana@Example.com', test_clock: 'clock_1' } })
      .then([{ type: 'customer.created', data: { ...created.data, test_clock: 'clock_1' } }]);
    given(customerDecider)
      .when({ type: 'CreateCustomer', owner: { accountId: 'acct_1', mode: 'live' }, customerId: id, now, fields: { email: 'a@b.co', test_clock: 'clock_1' } })
      .thenRejects('parameter_invalid', 'test_clock');
    given(customerDecider)
      .when({ type: 'CreateCustomer', owner, customerId: id, now, fields: { email: 'a@b.co', test_clock: 42 as unknown as string } })
      .thenRejects('parameter_invalid', 'test_clock');
  });

  test('test_clock cannot be changed by an update; customers recorded before test clocks have none', () => {
    const onClock: CustomerEvent = { type: 'customer.created', data: { ...created.data, test_clock: 'clock_1' } };
    given(customerDecider, [onClock])
      .when({ type: 'UpdateCustomer', owner, customerId: id, now, changes: { test_clock: null } as never })
      .then([]);
    const { test_clock: _none, ...older } = created.data;
    const state = customerDecider.evolve(customerDecider.initialState, { type: 'customer.created', data: older } as CustomerEvent);
    expect(state.fields!.test_clock).toBeNull();
  });

  test('refuses a missing or malformed email', () => {
    given(customerDecider)
      .when({ type: 'CreateCustomer', owner, customerId: id, now, fields: { email: undefined as unknown as string } })
      .thenRejects('parameter_missing', 'email');
    given(customerDecider).when({ type: 'CreateCustomer', owner, customerId: id, now, fields: { email: 'not-an-email' } }).thenRejects('parameter_invalid', 'email');
  });

  test('refuses bad fields, naming nested ones in bracket style', () => {
    const create = (fields: object) => given(customerDecider).when({ type: 'CreateCustomer', owner, customerId: id, now, fields: { email: 'a@b.co', ...fields } });
    create({ name: '   ' }).thenRejects('parameter_invalid', 'name');
    create({ document_type: 'XX' }).thenRejects('parameter_invalid', 'document_type');
    create({ billing_address: { ...address, country: 'ZZ' } }).thenRejects('parameter_invalid', 'billing_address[country]');
    create({ billing_address: { ...address, city: ' ' } }).thenRejects('parameter_invalid', 'billing_address[city]');
    create({ billing_address: { ...address, address_1: null } }).thenRejects('parameter_invalid', 'billing_address[address_1]');
    create({ meta_data: { k: 'v'.repeat(256) } }).thenRejects('parameter_invalid', 'meta_data[k]');
  });

  test('an id is used once', () => {
    given(customerDecider, [created]).when({ type: 'CreateCustomer', owner, customerId: id, now, fields: { email: 'x@y.co' } }).thenRejects('invalid_state');
  });
});

describe('customer decider: update', () => {
  test('records the changed fields, normalised', () => {
    given(customerDecider, [created])
      .when({ type: 'UpdateCustomer', owner, customerId: id, now, changes: { email: ' new@example.com', billing_address: { ...address, country: 'co' }, meta_data: { a: '' } } })
      .then([
        {
          type: 'customer.updated',
          data: { id, changes: { email: 'new@example.com', billing_address: address, meta_data: { a: '' } } },
        },
      ]);
  });

  test('nothing to change records nothing', () => {
    given(customerDecider, [created]).when({ type: 'UpdateCustomer', owner, customerId: id, now, changes: {} }).then([]);
  });

  test('meta_data merges ("" removes a key); billing_address is replaced whole; null clears a field', () => {
    const past: CustomerEvent[] = [
      { ...created, data: { ...created.data, name: 'Ana', meta_data: { a: '1', b: '2' }, billing_address: { ...address, address_2: 'Of. 5' } } },
      { type: 'customer.updated', data: { id, changes: { meta_data: { a: '', c: '3' }, billing_address: { ...address, city: 'Medellín' }, name: null } } },
    ];
    const state = past.reduce(customerDecider.evolve, customerDecider.initialState);
    expect(state.fields).toMatchObject({
      name: null,
      meta_data: { b: '2', c: '3' },
      billing_address: { ...address, city: 'Medellín', address_2: null },
    });
  });

  test('refuses an email set to null and invalid changes', () => {
    given(customerDecider, [created])
      .when({ type: 'UpdateCustomer', owner, customerId: id, now, changes: { email: null as unknown as string } })
      .thenRejects('parameter_invalid', 'email');
    given(customerDecider, [created])
      .when({ type: 'UpdateCustomer', owner, customerId: id, now, changes: { billing_address: { ...address, country: 'Colombia' } } })
      .thenRejects('parameter_invalid', 'billing_address[country]');
  });
});

describe('customer decider: tenancy', () => {
  test('a customer that does not exist is not found', () => {
    given(customerDecider).when({ type: 'UpdateCustomer', owner, customerId: id, now, changes: { name: 'x' } }).thenRejects('resource_missing', 'id');
  });

  test("another account's customer is not found", () => {
    given(customerDecider, [created])
      .when({ type: 'UpdateCustomer', owner: { accountId: 'acct_2', mode: 'test' }, customerId: id, now, changes: { name: 'x' } })
      .thenRejects('resource_missing', 'id');
  });

  test("the other mode's customer is not found", () => {
    given(customerDecider, [created])
      .when({ type: 'UpdateCustomer', owner: { accountId: 'acct_1', mode: 'live' }, customerId: id, now, changes: { name: 'x' } })
      .thenRejects('resource_missing', 'id');
  });
});

test('the uniqueness key of an email is trimmed and lower-case', () => {
  expect(emailKey('  Ana@Example.COM ')).toBe('ana@example.com');
});

describe('customer decider: default payment method', () => {
  const setDefault = (paymentMethodId: string | null, extra: { onlyIfUnset?: boolean; expectCurrent?: string } = {}, o: typeof owner | { accountId: string; mode: 'live' | 'test' } = owner) =>
    ({ type: 'SetDefaultPaymentMethod' as const, owner: o, customerId: id, paymentMethodId, now, ...extra });
  const withDefault = (pm: string): CustomerEvent => ({ type: 'customer.updated', data: { id, changes: { default_payment_method: pm } } });

  test('sets the default payment method', () => {
    given(customerDecider, [created]).when(setDefault('pm_1')).then([withDefault('pm_1')]);
    const state = [created, withDefault('pm_1')].reduce(customerDecider.evolve, customerDecider.initialState);
    expect(state.fields?.default_payment_method).toBe('pm_1');
  });

  test('replaces another default; the same default again records nothing', () => {
    given(customerDecider, [created, withDefault('pm_1')]).when(setDefault('pm_2')).then([withDefault('pm_2')]);
    given(customerDecider, [created, withDefault('pm_1')]).when(setDefault('pm_1')).then([]);
  });

  test('onlyIfUnset: a first saved method becomes the default, a later one does not', () => {
    given(customerDecider, [created]).when(setDefault('pm_1', { onlyIfUnset: true })).then([withDefault('pm_1')]);
    given(customerDecider, [created, withDefault('pm_1')]).when(setDefault('pm_2', { onlyIfUnset: true })).then([]);
  });

  test('clearing on a deletion clears only that method', () => {
    const cleared: CustomerEvent = { type: 'customer.updated', data: { id, changes: { default_payment_method: null } } };
    given(customerDecider, [created, withDefault('pm_1')]).when(setDefault(null, { expectCurrent: 'pm_1' })).then([cleared]);
    expect([created, withDefault('pm_1'), cleared].reduce(customerDecider.evolve, customerDecider.initialState).fields?.default_payment_method).toBeNull();
    given(customerDecider, [created, withDefault('pm_2')]).when(setDefault(null, { expectCurrent: 'pm_1' })).then([]);
    given(customerDecider, [created]).when(setDefault(null, { expectCurrent: 'pm_1' })).then([]);
    given(customerDecider, [created]).when(setDefault(null)).then([]);
  });

  test('an update cannot set the default payment method', () => {
    given(customerDecider, [created])
      .when({ type: 'UpdateCustomer', owner, customerId: id, now, changes: { name: 'Ana', default_payment_method: 'pm_x' } as never })
      .then([{ type: 'customer.updated', data: { id, changes: { name: 'Ana' } } }]);
  });

  test('a customer that does not exist, or of another account or mode, is not found', () => {
    given(customerDecider).when(setDefault('pm_1')).thenRejects('resource_missing', 'id');
    given(customerDecider, [created]).when(setDefault('pm_1', {}, { accountId: 'acct_2', mode: 'test' })).thenRejects('resource_missing', 'id');
    given(customerDecider, [created]).when(setDefault('pm_1', {}, { accountId: 'acct_1', mode: 'live' })).thenRejects('resource_missing', 'id');
  });
});

describe('customer decider: erase (docs/personal-data.md)', () => {
  const erased = { type: 'customer.erased' as const, data: { id, erased_at: now.toISOString() } };

  test('the state forgets the personal fields as a replay reads them (placeholders; an empty one stays empty)', () => {
    const full = { ...created, data: { ...created.data, name: 'Ana', phone: '+573001112233', document_number: '123', billing_address: address, meta_data: { crm: '7' } } };
    expect(fold(customerDecider, [full, erased]).fields).toMatchObject({ email: '[erased]', name: '[erased]', phone: '[erased]', document_number: '[erased]', billing_address: null, meta_data: {}, default_payment_method: null });
    expect(fold(customerDecider, [created, erased]).fields).toMatchObject({ email: '[erased]', name: null, phone: null });
  });

  test('records the erasure once, with no personal data', () => {
    given(customerDecider, [created])
      .when({ type: 'EraseCustomer', owner, customerId: id, now })
      .then((events) => expect(events).toEqual([erased]));
    given(customerDecider, [created, erased]).when({ type: 'EraseCustomer', owner, customerId: id, now }).then((events) => expect(events).toEqual([]));
  });

  test('an erased customer takes no new personal data nor a payment method (409 customer_erased); clearing its default still works', () => {
    expect(given(customerDecider, [created, erased]).when({ type: 'UpdateCustomer', owner, customerId: id, changes: { name: 'Ana' }, now }).thenRejects('customer_erased').status).toBe(409);
    given(customerDecider, [created, erased])
      .when({ type: 'SetDefaultPaymentMethod', owner, customerId: id, paymentMethodId: 'pm_1', now })
      .thenRejects('customer_erased');
    const withDefault = { type: 'customer.updated' as const, data: { id, changes: { default_payment_method: 'pm_1' } } };
    given(customerDecider, [created, withDefault, erased])
      .when({ type: 'SetDefaultPaymentMethod', owner, customerId: id, paymentMethodId: null, expectCurrent: 'pm_1', now })
      .then((events) => expect(events).toEqual([{ type: 'customer.updated', data: { id, changes: { default_payment_method: null } } }]));
  });

  test("another account's customer is not found", () => {
    given(customerDecider, [created]).when({ type: 'EraseCustomer', owner: { accountId: 'acct_2', mode: 'test' }, customerId: id, now }).thenRejects('resource_missing');
  });
});
