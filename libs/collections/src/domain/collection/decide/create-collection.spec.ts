import { describe, expect, test } from '@jest/globals';
import { given } from '#shared/testing/given.js';
import { type CollectionCommand, collectionDecider } from '../../collection.decider.js';
import { owner, id, ref, price, oneTime, product, line, setupLine, rate, amountOff, percentOff, address, create, collect, history, stateOf, fieldsOf, types, invoice } from '../../testing/collection-fixtures.js';

describe('collection: create', () => {
  test('a charge collection is created pending, its items priced and its totals exact strings', () => {
    given(collectionDecider)
      .when(create())
      .then([
        {
          type: 'collection.created',
          data: {
            id,
            account_id: 'acct_1',
            is_test: true,
            created_at: '2026-01-31T10:00:00.000Z',
            items: [{ id: 'si_1', name: 'Plan Pro', unit_price: '59500.00', subtotal: '119000.00', total: '119000.00', quantity: 2, product, price: price('59500.00') }],
            discounts: [],
            description: 'Plan Pro',
            subtotal: '119000.00',
            total: '119000.00',
            status: 'pending',
            currency: 'COP',
            paid_date: null,
            voided_at_date: null,
            due_date: null,
            next_collection_attempt_date: null,
            collection_method: 'charge',
            collection_rule_id: null,
            type: 'invoice',
            meta_data: { order: '42' },
            payment_settings: null,
            invoice_settings: { invoice_document_id: null, invoice_cost_center: null },
            invoice_retentions: { reteica: null, retefte: null },
            collection_attempts: 0,
            collecting: false,
            payment_method_gateway: null,
            payment_method_type: null,
            paid_out_of_band: false,
            out_of_band_proof: null,
            customer: 'cus_1',
            billing_address: address,
            subscription: 'sub_1',
            invoice: null,
            invoice_number: null,
            checkout_url: 'https://checkout.test/col/col_1',
            invoices: [],
            additional_data: null,
            payment_method: null,
            latest_transaction: null,
            amount_refunded: '0.00',
            exchange_rates: [],
            discount_amounts: {},
            billing_reason: 'subscription_create',
            test_clock: null,
            retry_schedule: { retry_days: [1, 3, 5], final_days: 7 },
            dunning_step: 0,
            partial_payment: null,
            balance_of: null,
            amount_applied: '0.00',
            paid_by: null,
            applied_to: null,
          },
        },
      ]);
  });

  test('the state after creation: owned by the account and mode, pending, no transactions', () => {
    const state = stateOf(history(create()));
    expect(state).toMatchObject({ exists: true, owner, transactions: [] });
    expect(state.fields).toMatchObject({ status: 'pending', total: '119000.00' });
    expect(stateOf(history(create({}, { accountId: 'acct_1', mode: 'live' }))).owner).toEqual({ accountId: 'acct_1', mode: 'live' });
  });

  test('collect: the collection is sent at once, due until the end of the Bogotá day days_until_due days after today', () => {
    // now: 2026-01-31T10:00Z, 05:00 on Jan 31 in Bogotá; Feb 5 ends at 2026-02-06T04:59:59.999Z.
    given(collectionDecider)
      .when(collect(5))
      .then((events) => {
        expect(types(events)).toEqual(['collection.created', 'collection.sent']);
        expect(events[0].data).toMatchObject({ collection_method: 'collect', status: 'pending', due_date: '2026-02-06T04:59:59.999Z' });
        expect(events[1]).toEqual({ type: 'collection.sent', data: { ...ref, sent_at: '2026-01-31T10:00:00.000Z', checkout_url: 'https://checkout.test/col/col_1' } });
      });
    // Across the end of a month: Jan 31 + 30 days = Mar 2 (2026 is not a leap year).
    given(collectionDecider).when(collect(30)).then((events) => expect(events[0].data).toMatchObject({ due_date: '2026-03-03T04:59:59.999Z' }));
    // 0 days: due until the end of today.
    given(collectionDecider).when(collect(0)).then((events) => expect(events[0].data).toMatchObject({ due_date: '2026-02-01T04:59:59.999Z' }));
    // Calendar days of Bogotá whatever the host's time zone: 40 days cross the US and EU clock changes of March.
    given(collectionDecider).when(collect(40)).then((events) => expect(events[0].data).toMatchObject({ due_date: '2026-03-13T04:59:59.999Z' }));
    given(collectionDecider).when(collect(60)).then((events) => expect(events[0].data).toMatchObject({ due_date: '2026-04-02T04:59:59.999Z' }));
    // 21:00 on Jan 30 in Bogotá is Jan 31 in UTC: the days count from Bogotá's Jan 30 (due Feb 4, not Feb 5).
    given(collectionDecider)
      .when({ ...collect(5), now: new Date('2026-01-31T02:00:00.000Z') } as CollectionCommand)
      .then((events) => expect(events[0].data).toMatchObject({ due_date: '2026-02-05T04:59:59.999Z' }));
  });

  test('invoice_retentions: reteica per thousand (up to 1000), retefte percent (up to 100); anything else is 400 naming it', () => {
    given(collectionDecider)
      .when(create({ invoice_retentions: { reteica: '9.66', retefte: '2.5' } }))
      .then((events) => expect(events[0].data).toMatchObject({ invoice_retentions: { reteica: '9.66', retefte: '2.5' } }));
    given(collectionDecider).when(create({ invoice_retentions: { reteica: 'abc', retefte: null } })).thenRejects('parameter_invalid', 'invoice_retentions[reteica]');
    given(collectionDecider).when(create({ invoice_retentions: { reteica: '1000.5', retefte: null } })).thenRejects('parameter_invalid', 'invoice_retentions[reteica]');
    given(collectionDecider).when(create({ invoice_retentions: { reteica: null, retefte: '101' } })).thenRejects('parameter_invalid', 'invoice_retentions[retefte]');
  });

  test('collect needs days_until_due', () => {
    const e = given(collectionDecider).when(create({ collection_method: 'collect', days_until_due: null })).thenRejects('parameter_missing', 'days_until_due');
    expect(e.message).toBe('days_until_due is required with collection_method collect');
  });

  test('a zero total is created and paid at once (nothing to collect)', () => {
    const paidAtOnce = {
      type: 'collection.paid',
      data: {
        ...ref,
        paid_date: '2026-01-31T10:00:00.000Z',
        transaction: null,
        charge: null,
        payment_method: null,
        payment_method_gateway: null,
        payment_method_type: null,
        paid_out_of_band: false,
        out_of_band_proof: null,
        saved_payment_method: null,
        meta_data: { order: '42' },
      },
    };
    const events = given(collectionDecider)
      .when(create({ lines: [line({ free: true })], billing_reason: 'subscription_trial' }))
      .then((events) => {
        expect(types(events)).toEqual(['collection.created', 'collection.paid']);
        expect(events[0].data).toMatchObject({ subtotal: '0.00', total: '0.00', status: 'pending' });
        expect(events[1]).toEqual(paidAtOnce);
      });
    expect(fieldsOf(events)).toMatchObject({ status: 'paid', paid_date: '2026-01-31T10:00:00.000Z', collecting: false });
    // A collect collection with nothing to pay is not sent either.
    given(collectionDecider)
      .when(create({ lines: [line({ free: true })], collection_method: 'collect', days_until_due: 5 }))
      .then((events) => expect(types(events)).toEqual(['collection.created', 'collection.paid']));
    // A discount that takes everything also gives a zero total.
    given(collectionDecider)
      .when(create({ discounts: [percentOff('sd_1', '100')] }))
      .then((events) => {
        expect(types(events)).toEqual(['collection.created', 'collection.paid']);
        expect(events[0].data).toMatchObject({ subtotal: '119000.00', total: '0.00', discount_amounts: { sd_1: '119000.00' } });
      });
  });

  test('a trial collection: recurring items at 0, one-time items charged', () => {
    given(collectionDecider)
      .when(create({ lines: [line({ free: true }), setupLine()], billing_reason: 'subscription_trial' }))
      .then((events) => {
        expect(types(events)).toEqual(['collection.created']);
        expect(events[0].data).toMatchObject({
          items: [
            { id: 'si_1', unit_price: '0.00', subtotal: '0.00', total: '0.00', quantity: 2 },
            { id: 'si_2', name: 'Instalación', unit_price: '19000.00', subtotal: '19000.00', total: '19000.00', quantity: 1 },
          ],
          subtotal: '19000.00',
          total: '19000.00',
          billing_reason: 'subscription_trial',
        });
      });
  });

  test('discounts are normalised and applied in order: amount, then percent of the subtotal', () => {
    given(collectionDecider)
      .when(create({ lines: [line(), setupLine()], discounts: [amountOff('sd_1', '10000', ' WELCOME '), percentOff('sd_2', '10.0')] }))
      .then((events) =>
        // subtotal 119000 + 19000 = 138000; - 10000; - 10% of 138000 = 13800 → 114200
        expect(events[0].data).toMatchObject({
          discounts: [
            { id: 'sd_1', code: 'WELCOME', amount: '10000.00', percent: null },
            { id: 'sd_2', code: 'TENOFF', amount: null, percent: '10' },
          ],
          subtotal: '138000.00',
          total: '114200.00',
          discount_amounts: { sd_1: '10000.00', sd_2: '13800.00' },
        }),
      );
  });

  test('lines in other currencies are converted and the rates used are kept, one per pair', () => {
    const usd = rate('USD', '4000');
    const eur = rate('EUR', '4400');
    given(collectionDecider)
      .when(
        create({
          lines: [
            line({ price: price('29.75', { currency: 'USD' }), quantity: 1, rate: usd }),
            setupLine({ price: { ...oneTime('5.00'), currency: 'USD' }, rate: usd }),
            line({ id: 'si_3', price: price('10.00', { id: 'price_eur', currency: 'EUR' }), quantity: 1, rate: eur }),
          ],
        }),
      )
      .then((events) =>
        // 29.75 × 4000 = 119000; 5 × 4000 = 20000; 10 × 4400 = 44000; 183000 in all
        expect(events[0].data).toMatchObject({
          currency: 'COP',
          items: [{ subtotal: '119000.00' }, { subtotal: '20000.00' }, { subtotal: '44000.00' }],
          subtotal: '183000.00',
          total: '183000.00',
          exchange_rates: [usd, eur],
        }),
      );
  });

  test('the currency code is upper-cased', () => {
    given(collectionDecider).when(create({ currency: 'cop' })).then((events) => expect(events[0].data).toMatchObject({ currency: 'COP' }));
  });

  test('refuses an unknown currency, no items, bad discounts and bad meta_data', () => {
    const e = given(collectionDecider).when(create({ currency: 'XXY' })).thenRejects('parameter_invalid', 'currency');
    expect(e.message).toBe('currency must be an ISO 4217 currency code (got XXY)');
    expect(given(collectionDecider).when(create({ lines: [] })).thenRejects('parameter_missing', 'items').message).toBe('items must have at least one item');
    const both = given(collectionDecider).when(create({ discounts: [{ id: 'sd_1', code: 'X', amount: '1.00', percent: '5' }] })).thenRejects('parameter_invalid', 'discounts[0]');
    expect(both.message).toBe('discounts[0] needs exactly one of amount or percent');
    given(collectionDecider).when(create({ discounts: [{ id: 'sd_1', code: 'X', amount: null, percent: null }] })).thenRejects('parameter_invalid', 'discounts[0]');
    given(collectionDecider).when(create({ discounts: [amountOff('sd_1', '1.00', '  ')] })).thenRejects('parameter_invalid', 'discounts[0][code]');
    given(collectionDecider).when(create({ discounts: [amountOff('sd_1', '0')] })).thenRejects('parameter_invalid', 'discounts[0][amount]');
    const decimals = given(collectionDecider).when(create({ discounts: [amountOff('sd_1', '1.001')] })).thenRejects('parameter_invalid', 'discounts[0][amount]');
    expect(decimals.message).toBe('discounts[0][amount] has more decimals than COP allows (2)');
    const pct = given(collectionDecider).when(create({ discounts: [amountOff('sd_1', '1.00'), percentOff('sd_2', '100.5')] })).thenRejects('parameter_invalid', 'discounts[1][percent]');
    expect(pct.message).toBe('discounts[1][percent] must be a decimal greater than 0 and at most 100');
    given(collectionDecider).when(create({ discounts: [percentOff('sd_1', '0')] })).thenRejects('parameter_invalid', 'discounts[0][percent]');
    const many = Array.from({ length: 21 }, (_, i) => amountOff(`sd_${i}`, '1.00'));
    given(collectionDecider).when(create({ discounts: many })).thenRejects('parameter_invalid', 'discounts');
    given(collectionDecider).when(create({ meta_data: { k: 'v'.repeat(256) } })).thenRejects('parameter_invalid', 'meta_data[k]');
  });

  test('an id is used once', () => {
    const e = given(collectionDecider, history(create())).when(create()).thenRejects('invalid_state');
    expect(e.message).toBe('Collection col_1 already exists');
  });
});
