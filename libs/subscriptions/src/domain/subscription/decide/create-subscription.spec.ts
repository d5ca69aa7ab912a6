/** CreateSubscription: the spec's rejections, the other rules, the starting state. */
import { describe, expect, test } from '@jest/globals';
import { fold } from '#shared/decider.js';
import { given } from '#shared/testing/given.js';
import { FIRST_PAYMENT_WINDOW_HOURS, MESSAGES, subscriptionDecider } from '../../subscription.decider.js';
import { NOW, owner, id, monthly, monthlyAddon, quarterly, yearly, setup, ntpMonthly, usdMonthly, product, setupProduct, item, create, collectInput, fieldsOf, createdData, incomplete, trialing, scheduled } from '../../testing/subscription-fixtures.js';

describe("subscription create: the spec's rejections, word for word", () => {
  test('the messages are the spec texts', () => {
    expect(MESSAGES).toEqual({
      daysUntilDueWithCharge: 'days_until_due is only allowed for collection_method charge',
      sameFrequency: 'All prices must have the same frequency (billing_period and billing_interval)',
      paymentMethodXorInformation: 'payment_method and payment_information are mutually exclusive; send only one',
      firstPaymentInvoicingCreateWithCharge: 'first_payment_invoicing create is not allowed with collection_method charge; only after is valid',
      paymentInformationWithSchedule: 'payment_information is not allowed with schedule_date',
      trialWithSchedule: 'trial_days cannot be combined with schedule_date',
    });
  });

  test('days_until_due with charge', () => {
    const e = given(subscriptionDecider).when(create({ collection_method: 'charge', days_until_due: 5 })).thenRejects('parameter_invalid', 'days_until_due');
    expect(e.message).toBe('days_until_due is only allowed for collection_method charge');
    // collection_method defaults to charge
    expect(given(subscriptionDecider).when(create({ days_until_due: 0 })).thenRejects('parameter_invalid', 'days_until_due').message).toBe(MESSAGES.daysUntilDueWithCharge);
  });

  test('days_until_due is required with collect, and bounded', () => {
    const e = given(subscriptionDecider).when(create({ collection_method: 'collect' })).thenRejects('parameter_missing', 'days_until_due');
    expect(e.message).toBe('days_until_due is required with collection_method collect');
    const range = given(subscriptionDecider).when(create(collectInput({ days_until_due: 366 }))).thenRejects('parameter_invalid', 'days_until_due');
    expect(range.message).toBe('days_until_due must be an integer from 0 to 365');
    given(subscriptionDecider).when(create(collectInput({ days_until_due: 1.5 }))).thenRejects('parameter_invalid', 'days_until_due');
  });

  test('payment_method and payment_information together', () => {
    const e = given(subscriptionDecider)
      .when(create({ payment_method: 'pm_1', payment_information: { gateway: 'gateway_a', type: 'card' } }))
      .thenRejects('parameter_invalid', 'payment_information');
    expect(e.message).toBe('payment_method and payment_information are mutually exclusive; send only one');
  });

  test('recurring prices with different frequencies', () => {
    for (const other of [yearly, quarterly]) {
      const e = given(subscriptionDecider).when(create({ items: [item(monthly), item(other, { newId: 'si_2' })] })).thenRejects('parameter_invalid', 'items');
      expect(e.message).toBe('All prices must have the same frequency (billing_period and billing_interval)');
    }
    // One-time prices have no frequency; two monthly prices share one.
    given(subscriptionDecider)
      .when(create({ items: [item(monthly), item(setup, { newId: 'si_2', product: setupProduct }), item(monthlyAddon, { newId: 'si_3' })] }))
      .then((events) => expect(events[0].data).toMatchObject({ billing_period: 'month', billing_interval: 1 }));
  });

  test('first_payment_invoicing create with charge (allowed with collect)', () => {
    const e = given(subscriptionDecider).when(create({ first_payment_invoicing: 'create' })).thenRejects('parameter_invalid', 'first_payment_invoicing');
    expect(e.message).toBe('first_payment_invoicing create is not allowed with collection_method charge; only after is valid');
    given(subscriptionDecider)
      .when(create(collectInput({ first_payment_invoicing: 'create' })))
      .then((events) => expect(events[0].data).toMatchObject({ first_payment_invoicing: 'create' }));
    given(subscriptionDecider).when(create({ first_payment_invoicing: 'before' as 'after' })).thenRejects('parameter_invalid', 'first_payment_invoicing');
  });

  test('payment_information with schedule_date', () => {
    const e = given(subscriptionDecider)
      .when(create({ payment_information: { gateway: 'gateway_a', type: 'card' }, schedule_date: '2026-03-01T10:00:00.000Z' }))
      .thenRejects('parameter_invalid', 'payment_information');
    expect(e.message).toBe('payment_information is not allowed with schedule_date');
  });

  test('trial_days with schedule_date', () => {
    const e = given(subscriptionDecider).when(create({ trial_days: 14, schedule_date: '2026-03-01T10:00:00.000Z' })).thenRejects('parameter_invalid', 'trial_days');
    expect(e.message).toBe('trial_days cannot be combined with schedule_date');
  });

  test('a charge subscription without payment_method, payment_information or a customer default is refused', () => {
    const e = given(subscriptionDecider).when(create({}, { facts: { customerDefault: null } })).thenRejects('payment_method_required', 'payment_method');
    expect(e.message).toBe('Customer cus_1 has no default payment method; send payment_method or payment_information');
    expect(e.status).toBe(400);
    // collect needs none; payment_information needs none.
    given(subscriptionDecider).when(create(collectInput(), { facts: { customerDefault: null } })).then((events) => expect(events).toHaveLength(1));
    given(subscriptionDecider)
      .when(create({ payment_information: { gateway: 'gateway_a', type: 'card' } }, { facts: { customerDefault: null } }))
      .then((events) => expect(events).toHaveLength(1));
  });
});

describe('subscription create: other rules', () => {
  test('a payment_method that is not a usable method of the customer is refused', () => {
    const e = given(subscriptionDecider).when(create({ payment_method: 'pm_x' }, { facts: { requestedUsable: false } })).thenRejects('parameter_invalid', 'payment_method');
    expect(e.message).toBe("No such payment method for this customer: 'pm_x'");
  });

  test('payment_method, payment_information and switch_to_charge belong to one collection method each', () => {
    expect(given(subscriptionDecider).when(create(collectInput({ payment_method: 'pm_1' }))).thenRejects('parameter_invalid', 'payment_method').message).toBe(
      'payment_method is only allowed with collection_method charge',
    );
    expect(
      given(subscriptionDecider)
        .when(create(collectInput({ payment_information: { gateway: 'gateway_a', type: 'pse' } })))
        .thenRejects('parameter_invalid', 'payment_information').message,
    ).toBe('payment_information is only allowed with collection_method charge');
    expect(given(subscriptionDecider).when(create({ switch_to_charge: true })).thenRejects('parameter_invalid', 'switch_to_charge').message).toBe(
      'switch_to_charge is only allowed with collection_method collect',
    );
    given(subscriptionDecider).when(create({ collection_method: 'send' as 'charge' })).thenRejects('parameter_invalid', 'collection_method');
  });

  test('payment_information names a known gateway and a method it offers', () => {
    expect(given(subscriptionDecider).when(create({ payment_information: { gateway: 'gateway_z', type: 'card' } })).thenRejects('parameter_invalid', 'payment_information[gateway]').message).toBe(
      'Unknown gateway gateway_z',
    );
    expect(given(subscriptionDecider).when(create({ payment_information: { gateway: 'gateway_i', type: 'pse' } })).thenRejects('parameter_invalid', 'payment_information[type]').message).toBe(
      'gateway_i does not offer pse',
    );
  });

  test('schedule_date must be a future timestamp', () => {
    expect(given(subscriptionDecider).when(create({ schedule_date: NOW })).thenRejects('parameter_invalid', 'schedule_date').message).toBe('schedule_date must be in the future');
    expect(given(subscriptionDecider).when(create({ schedule_date: 'next monday' })).thenRejects('parameter_invalid', 'schedule_date').message).toBe(
      'schedule_date must be an ISO 8601 timestamp',
    );
  });

  test('trial_days, duration and commitment_periods are bounded integers; commitment cannot exceed duration', () => {
    given(subscriptionDecider).when(create({ trial_days: 0 })).thenRejects('parameter_invalid', 'trial_days');
    given(subscriptionDecider).when(create({ trial_days: 731 })).thenRejects('parameter_invalid', 'trial_days');
    given(subscriptionDecider).when(create({ duration: 0 })).thenRejects('parameter_invalid', 'duration');
    given(subscriptionDecider).when(create({ commitment_periods: 1.5 })).thenRejects('parameter_invalid', 'commitment_periods');
    expect(given(subscriptionDecider).when(create({ duration: 6, commitment_periods: 12 })).thenRejects('parameter_invalid', 'commitment_periods').message).toBe(
      'commitment_periods cannot exceed duration',
    );
    given(subscriptionDecider)
      .when(create({ duration: 12, commitment_periods: 12, usage_based: true }))
      .then((events) => expect(events[0].data).toMatchObject({ duration: 12, commitment_periods: 12, usage_based: true }));
  });

  test('items: at least one recurring price, active prices, quantities, ntp amounts', () => {
    expect(given(subscriptionDecider).when(create({ items: [item(setup)] })).thenRejects('parameter_invalid', 'items').message).toBe('A subscription needs at least one recurring price');
    given(subscriptionDecider).when(create({ items: [] })).thenRejects('parameter_invalid', 'items');
    expect(given(subscriptionDecider).when(create({ items: [item({ ...monthly, active: false })] })).thenRejects('parameter_invalid', 'items[0][price]').message).toBe(
      'Price price_monthly is not active',
    );
    expect(given(subscriptionDecider).when(create({ items: [item(monthly, { quantity: 0 })] })).thenRejects('parameter_invalid', 'items[0][quantity]').message).toBe(
      'items[0][quantity] must be an integer from 1 to 1000000',
    );
    given(subscriptionDecider).when(create({ items: [item(monthly, { price: undefined })] })).thenRejects('parameter_missing', 'items[0][price]');
    given(subscriptionDecider).when(create({ items: [item(monthly, { amount: '100.00' })] })).thenRejects('parameter_invalid', 'items[0][amount]');
    given(subscriptionDecider).when(create({ items: [item(ntpMonthly, { amount: '4000.00' })] })).thenRejects('parameter_invalid', 'items[0][amount]');
    const many = Array.from({ length: 21 }, (_, i) => item(monthly, { newId: `si_${i}` }));
    expect(given(subscriptionDecider).when(create({ items: many })).thenRejects('parameter_invalid', 'items').message).toBe('items can have at most 20 items');
  });

  test('an ntp item keeps the chosen amount, or the suggested one; an ntp subscription has no trial', () => {
    given(subscriptionDecider)
      .when(create({ items: [item(ntpMonthly, { amount: '35000.00' })] }))
      .then((events) => expect(createdData(events).items[0]).toEqual({ id: 'si_1', price: ntpMonthly, product, quantity: 1, amount: '35000.00' }));
    given(subscriptionDecider).when(create({ items: [item(ntpMonthly)] })).then((events) => expect(createdData(events).items[0].amount).toBe('20000.00'));
    expect(given(subscriptionDecider).when(create({ items: [item(ntpMonthly)], trial_days: 7 })).thenRejects('parameter_invalid', 'trial_days').message).toBe(
      'A subscription with an ntp price cannot have a free trial',
    );
  });

  test("the currency is the first recurring price's unless given; it must be a currency", () => {
    given(subscriptionDecider).when(create({ items: [item(usdMonthly)] })).then((events) => expect(createdData(events).currency).toBe('USD'));
    given(subscriptionDecider).when(create({ currency: 'cop', items: [item(usdMonthly)] })).then((events) => expect(createdData(events).currency).toBe('COP'));
    expect(given(subscriptionDecider).when(create({ currency: 'ABC' })).thenRejects('parameter_invalid', 'currency').message).toBe('currency must be an ISO 4217 currency code (got ABC)');
  });

  test('discounts get their ids, are normalised, and keep duration_in_collections (null = every cycle)', () => {
    given(subscriptionDecider)
      .when(create({ discounts: [{ code: ' WELCOME ', amount: '10000', duration_in_collections: 1 }, { code: 'TENOFF', percent: '10.50' }] }))
      .then((events) =>
        expect(createdData(events).discounts).toEqual([
          { id: 'sd_1', code: 'WELCOME', amount: '10000.00', percent: null, duration_in_collections: 1 },
          { id: 'sd_2', code: 'TENOFF', amount: null, percent: '10.5', duration_in_collections: null },
        ]),
      );
    given(subscriptionDecider).when(create({ discounts: [{ code: 'X', amount: '1.00', percent: '5' }] })).thenRejects('parameter_invalid', 'discounts[0]');
    given(subscriptionDecider).when(create({ discounts: [{ code: 'X', amount: '1.00', duration_in_collections: 0 }] })).thenRejects('parameter_invalid', 'discounts[0][duration_in_collections]');
  });

  test('meta_data values are at most 255 characters; invoicing settings and retentions are kept', () => {
    given(subscriptionDecider).when(create({ meta_data: { crm: 'x'.repeat(256) } })).thenRejects('parameter_invalid', 'meta_data[crm]');
    given(subscriptionDecider)
      .when(create({ meta_data: { crm: 'x'.repeat(255) }, invoice_settings: { invoice_document_id: 'DOC-1' }, invoice_retentions: { reteica: '9.66', retefte: '2.5' }, renewal_invoicing: false }))
      .then((events) =>
        expect(events[0].data).toMatchObject({
          meta_data: { crm: 'x'.repeat(255) },
          invoice_settings: { invoice_document_id: 'DOC-1', invoice_cost_center: null },
          invoice_retentions: { reteiva: null, reteica: '9.66', retefte: '2.5' },
          renewal_invoicing: false,
        }),
      );
    expect(given(subscriptionDecider).when(create({ invoice_retentions: { reteiva: '19%' } })).thenRejects('parameter_invalid', 'invoice_retentions[reteiva]').message).toBe(
      'invoice_retentions[reteiva] must be a rate percent from 0 to 100 with at most 4 decimals, such as "15", or null',
    );
    // ReteICA is per thousand (up to 1000 ‰), the others percent (up to 100 %).
    given(subscriptionDecider).when(create({ invoice_retentions: { reteica: '150' } })).then((events) => expect(events[0].data).toMatchObject({ invoice_retentions: { reteica: '150' } }));
    expect(given(subscriptionDecider).when(create({ invoice_retentions: { reteica: '1000.01' } })).thenRejects('parameter_invalid', 'invoice_retentions[reteica]').message).toBe(
      'invoice_retentions[reteica] must be a rate per thousand (‰) from 0 to 1000 with at most 4 decimals, such as "9.66", or null',
    );
    given(subscriptionDecider).when(create({ invoice_retentions: { retefte: '150' } })).thenRejects('parameter_invalid', 'invoice_retentions[retefte]');
  });

  test('next_renewal_date is only for migrations', () => {
    expect(given(subscriptionDecider).when(create({ next_renewal_date: '2026-02-15T10:00:00.000Z' })).thenRejects('parameter_invalid', 'next_renewal_date').message).toBe(
      'next_renewal_date is only allowed when migrating',
    );
  });

  test('an id is used once', () => {
    const e = given(subscriptionDecider, incomplete()).when(create()).thenRejects('resource_already_exists');
    expect(e.message).toBe('Subscription sub_1 already exists');
    expect(e.status).toBe(409);
  });
});

describe('subscription create: the starting state', () => {
  test('charge → incomplete, latest_collection set, the first-payment window open', () => {
    given(subscriptionDecider)
      .when(create())
      .then([
        {
          type: 'subscription.created',
          data: {
            id,
            account_id: 'acct_1',
            is_test: true,
            created_at: NOW,
            first_collection: 'col_1',
            customer: 'cus_1',
            status: 'incomplete',
            items: [{ id: 'si_1', price: monthly, product, quantity: 1, amount: null }],
            currency: 'COP',
            billing_period: 'month',
            billing_interval: 1,
            collection_method: 'charge',
            payment_method: 'pm_default',
            payment_information: null,
            days_until_due: null,
            first_payment_invoicing: 'after',
            renewal_invoicing: true,
            schedule_date: null,
            trial_days: null,
            trial_end: null,
            duration: null,
            commitment_periods: null,
            usage_based: false,
            discounts: [],
            switch_to_charge: false,
            invoice_settings: { invoice_document_id: null, invoice_cost_center: null },
            invoice_retentions: { reteiva: null, reteica: null, retefte: null },
            meta_data: {},
            latest_collection: 'col_1',
            // Anchored on Jan 31: the first cycle ends on Feb 28 (2026 is not a leap year).
            next_renewal_date: '2026-02-28T10:00:00.000Z',
            current_period_start: NOW,
            current_period_end: '2026-02-28T10:00:00.000Z',
            billing_cycle_anchor: NOW,
            collections_count: 1,
            // now + 23 hours
            first_payment_expires_at: '2026-02-01T09:00:00.000Z',
            activated_at: null,
            cancel_at: null,
            canceled_at: null,
            paused_at: null,
            resumes_at: null,
            ended_at: null,
            shipping: null,
            shipping_item: null,
            migrated: false,
            test_clock: null,
            cycle: 1,
            usage_reported_for: null,
            usage_collect_at: null,
            expired_at: null,
          },
        },
      ]);
    expect(FIRST_PAYMENT_WINDOW_HOURS).toBe(23);
    const state = fold(subscriptionDecider, incomplete());
    expect(state).toMatchObject({ exists: true, owner, trialCollection: null });
    expect(state.fields).toMatchObject({ status: 'incomplete', latest_collection: 'col_1' });
  });

  test('charge with an explicit payment_method or with payment_information (only gateway and type are kept)', () => {
    given(subscriptionDecider).when(create({ payment_method: 'pm_2' })).then((events) => expect(events[0].data).toMatchObject({ payment_method: 'pm_2', payment_information: null }));
    const info = { gateway: 'gateway_a', type: 'card', card: { number: '4242424242424242', exp_month: 12, exp_year: 2030 } };
    given(subscriptionDecider)
      .when(create({ payment_information: info }))
      .then((events) => {
        expect(events[0].data).toMatchObject({ status: 'incomplete', payment_method: null, payment_information: { gateway: 'gateway_a', type: 'card' } });
        expect(createdData(events).payment_information).toEqual({ gateway: 'gateway_a', type: 'card' });
        expect(JSON.stringify(events)).not.toContain('4242424242424242');
      });
  });

  test('collect → active at once, with days_until_due and no payment method', () => {
    given(subscriptionDecider)
      .when(create(collectInput()))
      .then((events) =>
        expect(events[0]).toMatchObject({
          type: 'subscription.created',
          data: {
            status: 'active',
            collection_method: 'collect',
            days_until_due: 5,
            payment_method: null,
            latest_collection: 'col_1',
            first_collection: 'col_1',
            activated_at: NOW,
            first_payment_expires_at: null,
            next_renewal_date: '2026-02-28T10:00:00.000Z',
            collections_count: 1,
          },
        }),
      );
  });

  test('trial_days → trialing with trial_end; the first (trial) collection is not a cycle', () => {
    given(subscriptionDecider)
      .when(create({ trial_days: 14 }))
      .then((events) =>
        expect(events[0]).toMatchObject({
          type: 'subscription.created',
          data: {
            status: 'trialing',
            trial_days: 14,
            trial_end: '2026-02-14T10:00:00.000Z',
            next_renewal_date: '2026-02-14T10:00:00.000Z',
            billing_cycle_anchor: '2026-02-14T10:00:00.000Z',
            current_period_start: NOW,
            current_period_end: '2026-02-14T10:00:00.000Z',
            latest_collection: 'col_1',
            first_collection: 'col_1',
            collections_count: 0,
            first_payment_expires_at: null,
            activated_at: null,
          },
        }),
      );
    expect(fold(subscriptionDecider, trialing()).trialCollection).toBe('col_1');
    given(subscriptionDecider).when(create(collectInput({ trial_days: 30 }))).then((events) => expect(events[0].data).toMatchObject({ status: 'trialing', trial_end: '2026-03-02T10:00:00.000Z' }));
    // Whole days of 24 hours whatever the host's time zone: 60 days cross the US and EU clock changes of March.
    given(subscriptionDecider).when(create({ trial_days: 60 })).then((events) => expect(events[0].data).toMatchObject({ trial_end: '2026-04-01T10:00:00.000Z', next_renewal_date: '2026-04-01T10:00:00.000Z' }));
  });

  test('schedule_date → subscription.scheduled, no collection until that date', () => {
    given(subscriptionDecider)
      .when(create({ schedule_date: '2026-03-01T05:00:00-05:00' }))
      .then((events) =>
        expect(events).toEqual([
          {
            type: 'subscription.scheduled',
            data: expect.objectContaining({
              status: 'scheduled',
              schedule_date: '2026-03-01T10:00:00.000Z',
              next_renewal_date: '2026-03-01T10:00:00.000Z',
              billing_cycle_anchor: '2026-03-01T10:00:00.000Z',
              latest_collection: null,
              first_collection: null,
              current_period_start: null,
              current_period_end: null,
              collections_count: 0,
              first_payment_expires_at: null,
              activated_at: null,
            }),
          },
        ]),
      );
    expect(fieldsOf(scheduled()).status).toBe('scheduled');
    expect(fold(subscriptionDecider, scheduled()).trialCollection).toBeNull();
  });

  test('migrate → active at the given next_renewal_date, no collection', () => {
    given(subscriptionDecider)
      .when(create({ next_renewal_date: '2026-02-15T10:00:00.000Z' }, { migrate: true }))
      .then((events) =>
        expect(events[0]).toMatchObject({
          type: 'subscription.created',
          data: {
            status: 'active',
            migrated: true,
            first_collection: null,
            latest_collection: null,
            next_renewal_date: '2026-02-15T10:00:00.000Z',
            billing_cycle_anchor: '2026-02-15T10:00:00.000Z',
            current_period_start: null,
            current_period_end: '2026-02-15T10:00:00.000Z',
            collections_count: 0,
            activated_at: NOW,
            first_payment_expires_at: null,
            payment_method: 'pm_default',
          },
        }),
      );
  });

  test('migrate needs a future next_renewal_date, and takes neither schedule_date nor trial_days', () => {
    expect(given(subscriptionDecider).when(create({}, { migrate: true })).thenRejects('parameter_missing', 'next_renewal_date').message).toBe(
      'next_renewal_date is required when migrating a subscription',
    );
    expect(given(subscriptionDecider).when(create({ next_renewal_date: NOW }, { migrate: true })).thenRejects('parameter_invalid', 'next_renewal_date').message).toBe(
      'next_renewal_date must be in the future',
    );
    given(subscriptionDecider).when(create({ next_renewal_date: 'soon' }, { migrate: true })).thenRejects('parameter_invalid', 'next_renewal_date');
    expect(
      given(subscriptionDecider)
        .when(create({ next_renewal_date: '2026-02-15T10:00:00.000Z', schedule_date: '2026-03-01T10:00:00.000Z' }, { migrate: true }))
        .thenRejects('parameter_invalid', 'schedule_date').message,
    ).toBe('schedule_date is not allowed when migrating; send next_renewal_date');
    expect(
      given(subscriptionDecider).when(create({ next_renewal_date: '2026-02-15T10:00:00.000Z', trial_days: 7 }, { migrate: true })).thenRejects('parameter_invalid', 'trial_days').message,
    ).toBe('trial_days is not allowed when migrating; send next_renewal_date');
  });

  test('a live key makes a live subscription', () => {
    given(subscriptionDecider).when(create({}, { owner: { accountId: 'acct_1', mode: 'live' } })).then((events) => expect(createdData(events).is_test).toBe(false));
  });
});
