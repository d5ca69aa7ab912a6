import { describe, expect, test } from '@jest/globals';
import { priceSnapshot } from '#collections/domain/testing/price-snapshot.js';
import { fold } from '#shared/decider.js';
import { given } from '#shared/testing/given.js';
import type { PriceSnapshot } from '#collections/domain/pricing.js';
import {
  FIRST_PAYMENT_WINDOW_HOURS,
  MESSAGES,
  type ItemInput,
  type PaymentMethodFacts,
  type SubscriptionChanges,
  type SubscriptionCommand,
  type SubscriptionCreated,
  type SubscriptionEvent,
  type SubscriptionInput,
  type SubscriptionStatus,
  discountsForNextCollection,
  subscriptionDeadline,
  subscriptionDecider,
} from './subscription.decider.js';

const now = new Date('2026-01-31T10:00:00.000Z');
const NOW = now.toISOString();
const at = (hours: number) => new Date(now.getTime() + hours * 3_600_000);
const owner = { accountId: 'acct_1', mode: 'test' as const };
type Owner = { accountId: string; mode: 'test' | 'live' };
const id = 'sub_1';

// ---- price snapshots ----

const price = (unit_price: string | null, over: Partial<PriceSnapshot> = {}): PriceSnapshot => priceSnapshot(unit_price, over);
const monthly = price('59500.00');
const monthlyAddon = price('10000.00', { id: 'price_addon' });
const quarterly = price('150000.00', { id: 'price_quarterly', billing_interval: 3 });
const yearly = price('600000.00', { id: 'price_yearly', billing_period: 'year' });
const setup = price('19000.00', { id: 'price_setup', type: 'one_time', billing_period: null, billing_interval: null });
const ntpMonthly = price(null, { id: 'price_ntp', pricing_model: 'ntp', ntp_pricing: { min_amount: '5000.00', max_amount: null, suggested_amount: '20000.00' } });
const usdMonthly = price('15.00', { id: 'price_usd', currency: 'USD' });
const product = { id: 'prod_1', name: 'Plan Pro' };
const setupProduct = { id: 'prod_2', name: 'Instalación' };

const item = (p: PriceSnapshot, over: Partial<ItemInput> = {}): ItemInput => ({ newId: 'si_1', price: p, product, quantity: 1, ...over });

// ---- commands ----

const create = (input: Partial<SubscriptionInput> = {}, opts: { facts?: Partial<PaymentMethodFacts>; migrate?: boolean; owner?: Owner; now?: Date } = {}): SubscriptionCommand => ({
  type: 'CreateSubscription',
  owner: opts.owner ?? owner,
  subscriptionId: id,
  firstCollectionId: 'col_1',
  discountIds: ['sd_1', 'sd_2', 'sd_3'],
  input: { customer: 'cus_1', items: [item(monthly)], ...input },
  paymentMethods: { customerDefault: 'pm_default', requestedUsable: true, ...opts.facts },
  migrate: opts.migrate ?? false,
  now: opts.now ?? now,
});
const collectInput = (over: Partial<SubscriptionInput> = {}): Partial<SubscriptionInput> => ({ collection_method: 'collect', days_until_due: 5, ...over });
const paid = (collectionId: string, over: { paymentMethod?: string | null; tokenizable?: boolean; hours?: number } = {}): SubscriptionCommand => ({
  type: 'RecordCollectionPaid',
  owner,
  subscriptionId: id,
  collectionId,
  paymentMethod: over.paymentMethod ?? null,
  tokenizable: over.tokenizable ?? false,
  now: at(over.hours ?? 1),
});
const update = (changes: SubscriptionChanges, facts: Partial<PaymentMethodFacts> = {}, discountIds = ['sd_4', 'sd_5']): SubscriptionCommand => ({
  type: 'UpdateSubscription',
  owner,
  subscriptionId: id,
  changes,
  discountIds,
  paymentMethods: { customerDefault: 'pm_default', requestedUsable: true, ...facts },
  now: at(2),
});
const cancel = (cancelAt: 'period_end' | 'now', o: Owner = owner): SubscriptionCommand => ({ type: 'CancelSubscription', owner: o, subscriptionId: id, cancelAt, now: at(3) });
const pause = (resumesAt: string | null = null): SubscriptionCommand => ({ type: 'PauseSubscription', owner, subscriptionId: id, resumesAt, now: at(4) });
const resume = (): SubscriptionCommand => ({ type: 'ResumeSubscription', owner, subscriptionId: id, now: at(5) });
const deleteDiscount = (discountId: string): SubscriptionCommand => ({ type: 'DeleteSubscriptionDiscount', owner, subscriptionId: id, discountId, now: at(2) });

function history(...commands: SubscriptionCommand[]): SubscriptionEvent[] {
  const events: SubscriptionEvent[] = [];
  for (const c of commands) events.push(...subscriptionDecider.decide(c, fold(subscriptionDecider, events)));
  return events;
}
const fieldsOf = (events: SubscriptionEvent[]) => fold(subscriptionDecider, events).fields!;
const types = (events: SubscriptionEvent[]) => events.map((e) => e.type);
/** The data of a creation event. */
const createdData = (events: SubscriptionEvent[]) => (events[0] as SubscriptionCreated).data;

/** A subscription created in a status no command here reaches (the scheduler's transitions). */
function createdIn(status: SubscriptionStatus): SubscriptionEvent[] {
  const [created] = history(create(collectInput())) as SubscriptionCreated[];
  return [{ ...created, data: { ...created.data, status } }];
}

const incomplete = () => history(create());
const active = () => history(create(collectInput()));
const trialing = () => history(create({ trial_days: 14 }));
const scheduled = () => history(create({ schedule_date: '2026-03-01T10:00:00.000Z' }));
const paused = () => history(create(collectInput()), pause());
const pendingCancel = () => history(create(collectInput()), cancel('period_end'));
const canceled = () => history(create(collectInput()), cancel('now'));

// ---------------------------------------------------------------------------------------------

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

describe('subscription: a collection is paid', () => {
  const activated = (collection: string, hours = 1, meta_data = {}): SubscriptionEvent => ({
    type: 'subscription.activated',
    data: { id, customer: 'cus_1', status: 'active', meta_data, activated_at: at(hours).toISOString(), collection },
  });

  test('incomplete → active when its first collection is paid: subscription.activated', () => {
    given(subscriptionDecider, incomplete()).when(paid('col_1')).then([activated('col_1')]);
    const after = history(create(), paid('col_1'));
    expect(fieldsOf(after)).toMatchObject({ status: 'active', activated_at: at(1).toISOString(), first_payment_expires_at: null });
  });

  test('the activation carries the meta_data', () => {
    given(subscriptionDecider, history(create({ meta_data: { crm: '42' } })))
      .when(paid('col_1'))
      .then([activated('col_1', 1, { crm: '42' })]);
  });

  test('another collection of an incomplete subscription does not activate it', () => {
    given(subscriptionDecider, incomplete()).when(paid('col_other')).then([]);
  });

  test('trialing: paying the trial collection does not activate; paying the first real collection does', () => {
    given(subscriptionDecider, trialing()).when(paid('col_1')).then([]);
    const renewed: SubscriptionEvent = {
      type: 'subscription.updated',
      data: { id, customer: 'cus_1', status: 'trialing', meta_data: {}, changes: { latest_collection: 'col_2' }, reason: 'renewal' },
    };
    given(subscriptionDecider, [...trialing(), renewed]).when(paid('col_2', { hours: 24 * 14 })).then([activated('col_2', 24 * 14)]);
    // The trial collection stays the trial collection even after a renewal.
    given(subscriptionDecider, [...trialing(), renewed]).when(paid('col_1')).then([]);
  });

  test('an active subscription is not activated again by a paid renewal', () => {
    given(subscriptionDecider, active()).when(paid('col_1')).then([]);
    given(subscriptionDecider, history(create(), paid('col_1'))).when(paid('col_1', { hours: 2 })).then([]);
  });

  test('charge with one-off payment_information: the method saved by the first payment pays the renewals', () => {
    const oneOff = () => history(create({ payment_information: { gateway: 'gateway_a', type: 'card' } }));
    given(subscriptionDecider, oneOff())
      .when(paid('col_1', { paymentMethod: 'pm_new', tokenizable: true }))
      .then([
        activated('col_1'),
        {
          type: 'subscription.updated',
          data: { id, customer: 'cus_1', status: 'active', meta_data: {}, changes: { payment_method: 'pm_new', payment_information: null }, reason: 'payment_method_saved' },
        },
      ]);
    const saved = history(create({ payment_information: { gateway: 'gateway_a', type: 'card' } }), paid('col_1', { paymentMethod: 'pm_new', tokenizable: true }));
    expect(fieldsOf(saved)).toMatchObject({ status: 'active', payment_method: 'pm_new', payment_information: null });
    // Saved once: a later payment with another method changes nothing.
    given(subscriptionDecider, saved).when(paid('col_2', { paymentMethod: 'pm_other', tokenizable: true, hours: 2 })).then([]);
    // A method that cannot be stored (pse) saves nothing.
    given(subscriptionDecider, history(create({ payment_information: { gateway: 'gateway_a', type: 'pse' } })))
      .when(paid('col_1', { paymentMethod: null, tokenizable: false }))
      .then([activated('col_1')]);
    // A subscription that already has its payment method keeps it.
    given(subscriptionDecider, incomplete()).when(paid('col_1', { paymentMethod: 'pm_new', tokenizable: true })).then([activated('col_1')]);
  });

  test('switch_to_charge: a collection paid with a tokenizable method makes the subscription automatic', () => {
    const past = history(create(collectInput({ switch_to_charge: true })));
    given(subscriptionDecider, past)
      .when(paid('col_1', { paymentMethod: 'pm_9', tokenizable: true }))
      .then([
        {
          type: 'subscription.updated',
          data: { id, customer: 'cus_1', status: 'active', meta_data: {}, changes: { collection_method: 'charge', payment_method: 'pm_9', days_until_due: null }, reason: 'switch_to_charge' },
        },
      ]);
    const switched = history(create(collectInput({ switch_to_charge: true })), paid('col_1', { paymentMethod: 'pm_9', tokenizable: true }));
    expect(fieldsOf(switched)).toMatchObject({ collection_method: 'charge', payment_method: 'pm_9', days_until_due: null, status: 'active' });
    // Once automatic, later payments change nothing.
    given(subscriptionDecider, switched).when(paid('col_2', { paymentMethod: 'pm_10', tokenizable: true })).then([]);
  });

  test('switch_to_charge: not with a method that cannot be stored, nor without the flag', () => {
    given(subscriptionDecider, history(create(collectInput({ switch_to_charge: true })))).when(paid('col_1', { paymentMethod: null, tokenizable: false })).then([]);
    given(subscriptionDecider, history(create(collectInput({ switch_to_charge: true })))).when(paid('col_1', { paymentMethod: 'pm_9', tokenizable: false })).then([]);
    given(subscriptionDecider, active()).when(paid('col_1', { paymentMethod: 'pm_9', tokenizable: true })).then([]);
  });

  test('switch_to_charge while trialing: activated, then switched', () => {
    const renewed: SubscriptionEvent = {
      type: 'subscription.updated',
      data: { id, customer: 'cus_1', status: 'trialing', meta_data: {}, changes: { latest_collection: 'col_2' }, reason: 'renewal' },
    };
    given(subscriptionDecider, [...history(create(collectInput({ switch_to_charge: true, trial_days: 7 }))), renewed])
      .when(paid('col_2', { paymentMethod: 'pm_9', tokenizable: true }))
      .then((events) => {
        expect(types(events)).toEqual(['subscription.activated', 'subscription.updated']);
        expect(events[1].data).toMatchObject({ status: 'active', reason: 'switch_to_charge' });
      });
  });

  test('a canceled subscription does not switch', () => {
    given(subscriptionDecider, history(create(collectInput({ switch_to_charge: true })), cancel('now'))).when(paid('col_1', { paymentMethod: 'pm_9', tokenizable: true })).then([]);
  });
});

describe('subscription: cancel', () => {
  test('period_end from active → pending_cancel at the end of the current period', () => {
    given(subscriptionDecider, active())
      .when(cancel('period_end'))
      .then([{ type: 'subscription.pending_canceled', data: { id, customer: 'cus_1', status: 'pending_cancel', meta_data: {}, cancel_at: '2026-02-28T10:00:00.000Z' } }]);
    expect(fieldsOf(pendingCancel())).toMatchObject({ status: 'pending_cancel', cancel_at: '2026-02-28T10:00:00.000Z' });
    // Asked again: nothing more happens.
    given(subscriptionDecider, pendingCancel()).when(cancel('period_end')).then([]);
  });

  test('period_end is refused outside active (409 invalid_state naming the state)', () => {
    const cases: Array<[SubscriptionEvent[], SubscriptionStatus]> = [
      [incomplete(), 'incomplete'],
      [trialing(), 'trialing'],
      [scheduled(), 'scheduled'],
      [paused(), 'paused'],
      [canceled(), 'canceled'],
      [createdIn('past_due'), 'past_due'],
      [createdIn('ended'), 'ended'],
    ];
    for (const [past, status] of cases) {
      const e = given(subscriptionDecider, past).when(cancel('period_end')).thenRejects('invalid_state', null);
      expect(e.message).toBe(`Cannot cancel at period end subscription sub_1: its status is ${status}`);
      expect(e.status).toBe(409);
    }
  });

  test('now → canceled from any state that is not final', () => {
    const cases: Array<[SubscriptionEvent[], SubscriptionStatus]> = [
      [incomplete(), 'incomplete'],
      [active(), 'active'],
      [trialing(), 'trialing'],
      [scheduled(), 'scheduled'],
      [paused(), 'paused'],
      [pendingCancel(), 'pending_cancel'],
      [createdIn('past_due'), 'past_due'],
      [createdIn('unpaid'), 'unpaid'],
    ];
    for (const [past, status] of cases) {
      expect(fieldsOf(past).status).toBe(status);
      given(subscriptionDecider, past)
        .when(cancel('now'))
        .then([{ type: 'subscription.canceled', data: { id, customer: 'cus_1', status: 'canceled', meta_data: {}, canceled_at: at(3).toISOString() } }]);
    }
    expect(fieldsOf(history(create(), cancel('now')))).toMatchObject({ status: 'canceled', canceled_at: at(3).toISOString(), next_renewal_date: null, first_payment_expires_at: null });
  });

  test('now is refused in the final states canceled, ended and expired (409 invalid_state naming the state)', () => {
    for (const [past, status] of [
      [canceled(), 'canceled'],
      [createdIn('ended'), 'ended'],
      [createdIn('expired'), 'expired'],
    ] as const) {
      const e = given(subscriptionDecider, past).when(cancel('now')).thenRejects('invalid_state', null);
      expect(e.message).toBe(`Cannot cancel subscription sub_1: its status is ${status}`);
      expect(e.status).toBe(409);
    }
  });

  test('cancel_at must be period_end or now', () => {
    const e = given(subscriptionDecider, active())
      .when({ ...cancel('now'), cancelAt: 'tomorrow' } as unknown as SubscriptionCommand)
      .thenRejects('parameter_invalid', 'cancel_at');
    expect(e.message).toBe('cancel_at must be period_end or now');
  });
});

describe('subscription: pause and resume', () => {
  test('active → paused, optionally with resumes_at', () => {
    given(subscriptionDecider, active())
      .when(pause('2026-03-15T10:00:00.000Z'))
      .then([{ type: 'subscription.paused', data: { id, customer: 'cus_1', status: 'paused', meta_data: {}, paused_at: at(4).toISOString(), resumes_at: '2026-03-15T10:00:00.000Z' } }]);
    given(subscriptionDecider, active()).when(pause()).then((events) => expect(events[0].data).toMatchObject({ resumes_at: null }));
    expect(fieldsOf(history(create(collectInput()), pause('2026-03-15T10:00:00.000Z')))).toMatchObject({ status: 'paused', paused_at: at(4).toISOString(), resumes_at: '2026-03-15T10:00:00.000Z' });
  });

  test('resumes_at must be a future timestamp', () => {
    expect(given(subscriptionDecider, active()).when(pause(NOW)).thenRejects('parameter_invalid', 'resumes_at').message).toBe('resumes_at must be in the future');
    expect(given(subscriptionDecider, active()).when(pause('someday')).thenRejects('parameter_invalid', 'resumes_at').message).toBe('resumes_at must be an ISO 8601 timestamp');
  });

  test('only an active subscription is paused (409 naming the state)', () => {
    for (const [past, status] of [
      [paused(), 'paused'],
      [trialing(), 'trialing'],
      [incomplete(), 'incomplete'],
      [pendingCancel(), 'pending_cancel'],
      [canceled(), 'canceled'],
    ] as const) {
      const e = given(subscriptionDecider, past).when(pause()).thenRejects('invalid_state', null);
      expect(e.message).toBe(`Cannot pause subscription sub_1: its status is ${status}`);
    }
  });

  test('paused → resumed and active again', () => {
    given(subscriptionDecider, paused())
      .when(resume())
      .then([{ type: 'subscription.resumed', data: { id, customer: 'cus_1', status: 'active', meta_data: {}, resumed_at: at(5).toISOString(), next_renewal_date: '2026-02-28T10:00:00.000Z', cycle: 1 } }]);
    expect(fieldsOf(history(create(collectInput()), pause('2026-03-15T10:00:00.000Z'), resume()))).toMatchObject({ status: 'active', paused_at: null, resumes_at: null });
  });

  test('only a paused subscription is resumed (409 naming the state)', () => {
    for (const [past, status] of [
      [active(), 'active'],
      [canceled(), 'canceled'],
    ] as const) {
      const e = given(subscriptionDecider, past).when(resume()).thenRejects('invalid_state', null);
      expect(e.message).toBe(`Cannot resume subscription sub_1: its status is ${status}`);
    }
  });

  test('resume on pending_cancel withdraws the scheduled cancellation: active again, cancel_at cleared, renewing on its date', () => {
    given(subscriptionDecider, pendingCancel())
      .when(resume())
      .then([{ type: 'subscription.cancellation_withdrawn', data: { id, customer: 'cus_1', status: 'active', meta_data: {}, withdrawn_at: at(5).toISOString(), cancel_at: '2026-02-28T10:00:00.000Z' } }]);
    const after = fieldsOf(history(create(collectInput()), cancel('period_end'), resume()));
    expect(after).toMatchObject({ status: 'active', cancel_at: null, next_renewal_date: '2026-02-28T10:00:00.000Z', cycle: 1 });
    expect(subscriptionDeadline(after)).toEqual({ kind: 'renew', at: '2026-02-28T10:00:00.000Z' });
    // Withdrawn, it can be scheduled again; a second resume is a state error (nothing left to withdraw).
    given(subscriptionDecider, history(create(collectInput()), cancel('period_end'), resume())).when(cancel('period_end')).then(([e]) => expect(e.type).toBe('subscription.pending_canceled'));
    expect(given(subscriptionDecider, history(create(collectInput()), cancel('period_end'), resume())).when(resume()).thenRejects('invalid_state', null).message).toBe('Cannot resume subscription sub_1: its status is active');
  });

  test('a cancellation that stands while past due is withdrawn too; the subscription stays past due', () => {
    const [created] = createdIn('past_due') as SubscriptionCreated[];
    const overdueEnding: SubscriptionEvent[] = [{ ...created, data: { ...created.data, cancel_at: '2026-02-28T10:00:00.000Z' } }];
    given(subscriptionDecider, overdueEnding)
      .when(resume())
      .then([{ type: 'subscription.cancellation_withdrawn', data: { id, customer: 'cus_1', status: 'past_due', meta_data: {}, withdrawn_at: at(5).toISOString(), cancel_at: '2026-02-28T10:00:00.000Z' } }]);
    // Without a cancellation to withdraw, a past-due subscription is not resumable.
    expect(given(subscriptionDecider, createdIn('past_due')).when(resume()).thenRejects('invalid_state', null).message).toBe('Cannot resume subscription sub_1: its status is past_due');
  });
});

describe('subscription: update', () => {
  test('items: change a quantity, add a one-time item; the result is recorded whole', () => {
    given(subscriptionDecider, active())
      .when(update({ items: [{ id: 'si_1', quantity: 3 }, { newId: 'si_2', price: setup, product: setupProduct }] }))
      .then((events) => {
        expect(events).toHaveLength(1);
        expect(events[0]).toMatchObject({
          type: 'subscription.updated',
          data: {
            id,
            customer: 'cus_1',
            status: 'active',
            reason: 'api',
            changes: {
              items: [
                { id: 'si_1', price: monthly, product, quantity: 3, amount: null },
                { id: 'si_2', price: setup, product: setupProduct, quantity: 1, amount: null },
              ],
            },
          },
        });
      });
  });

  test('items: delete one, replace a price on the same frequency', () => {
    const two = history(create(collectInput({ items: [item(monthly), item(monthlyAddon, { newId: 'si_2' })] })));
    given(subscriptionDecider, two)
      .when(update({ items: [{ id: 'si_2', deleted: true }, { id: 'si_1', price: monthlyAddon, product }] }))
      .then((events) => expect(events[0].data).toMatchObject({ changes: { items: [{ id: 'si_1', price: monthlyAddon, quantity: 1 }] } }));
    const after = history(create(collectInput({ items: [item(monthly), item(monthlyAddon, { newId: 'si_2' })] })), update({ items: [{ id: 'si_2', deleted: true }] }));
    expect(fieldsOf(after).items.map((i) => i.id)).toEqual(['si_1']);
    // The event names the items the change removed.
    given(subscriptionDecider, two).when(update({ items: [{ id: 'si_2', deleted: true }] })).then((events) => expect(events[0].data).toMatchObject({ removed_items: ['si_2'] }));
    given(subscriptionDecider, two).when(update({ items: [{ id: 'si_2', quantity: 2 }] })).then((events) => expect(events[0].data).toMatchObject({ removed_items: [] }));
  });

  test('items: a frequency other than the subscription’s is refused with the spec message', () => {
    // The items alone disagree …
    expect(given(subscriptionDecider, active()).when(update({ items: [{ newId: 'si_2', price: yearly, product }] })).thenRejects('parameter_invalid', 'items').message).toBe(
      MESSAGES.sameFrequency,
    );
    // … or agree among themselves but not with the subscription.
    expect(given(subscriptionDecider, active()).when(update({ items: [{ id: 'si_1', price: quarterly, product }] })).thenRejects('parameter_invalid', 'items').message).toBe(
      'All prices must have the same frequency (billing_period and billing_interval)',
    );
  });

  test('items: unknown ids, a delete without id, no recurring price left, bad quantities', () => {
    const e = given(subscriptionDecider, active()).when(update({ items: [{ id: 'si_9', quantity: 2 }] })).thenRejects('resource_missing', 'items[0][id]');
    expect(e.message).toBe("No such subscription item: 'si_9'");
    given(subscriptionDecider, active()).when(update({ items: [{ deleted: true }] })).thenRejects('parameter_invalid', 'items[0][deleted]');
    expect(given(subscriptionDecider, active()).when(update({ items: [{ id: 'si_1', deleted: true }] })).thenRejects('parameter_invalid', 'items').message).toBe(
      'A subscription needs at least one recurring price',
    );
    given(subscriptionDecider, active()).when(update({ items: [{ id: 'si_1', quantity: 0 }] })).thenRejects('parameter_invalid', 'items[0][quantity]');
    given(subscriptionDecider, active()).when(update({ items: [{ newId: 'si_2' }] })).thenRejects('parameter_missing', 'items[0][price]');
  });

  test('discounts are replaced, with new ids', () => {
    given(subscriptionDecider, history(create(collectInput({ discounts: [{ code: 'OLD', amount: '1000' }] }))))
      .when(update({ discounts: [{ code: 'SUMMER', percent: '15', duration_in_collections: 3 }] }))
      .then((events) =>
        expect(events[0].data).toMatchObject({ changes: { discounts: [{ id: 'sd_4', code: 'SUMMER', amount: null, percent: '15', duration_in_collections: 3 }] } }),
      );
    given(subscriptionDecider, active()).when(update({ discounts: [{ code: 'X', percent: '150' }] })).thenRejects('parameter_invalid', 'discounts[0][percent]');
  });

  test('payment_method of a charge subscription: replaced by a usable one, never removed', () => {
    given(subscriptionDecider, incomplete())
      .when(update({ payment_method: 'pm_2' }))
      .then((events) => expect(events[0].data).toMatchObject({ changes: { payment_method: 'pm_2', payment_information: null }, status: 'incomplete' }));
    expect(given(subscriptionDecider, incomplete()).when(update({ payment_method: 'pm_2' }, { requestedUsable: false })).thenRejects('parameter_invalid', 'payment_method').message).toBe(
      "No such payment method for this customer: 'pm_2'",
    );
    expect(given(subscriptionDecider, incomplete()).when(update({ payment_method: null })).thenRejects('parameter_invalid', 'payment_method').message).toBe(
      'payment_method cannot be removed from a charge subscription',
    );
    expect(given(subscriptionDecider, active()).when(update({ payment_method: 'pm_2' })).thenRejects('parameter_invalid', 'payment_method').message).toBe(
      'payment_method is only allowed with collection_method charge',
    );
  });

  test('days_until_due: only for collect', () => {
    given(subscriptionDecider, active()).when(update({ days_until_due: 10 })).then((events) => expect(events[0].data).toMatchObject({ changes: { days_until_due: 10 } }));
    expect(given(subscriptionDecider, incomplete()).when(update({ days_until_due: 10 })).thenRejects('parameter_invalid', 'days_until_due').message).toBe(
      'days_until_due is only allowed for collection_method charge',
    );
    given(subscriptionDecider, active()).when(update({ days_until_due: -1 })).thenRejects('parameter_invalid', 'days_until_due');
  });

  test('meta_data merges ("" removes a key) and the event carries the merged meta_data', () => {
    given(subscriptionDecider, history(create(collectInput({ meta_data: { a: '1', b: '2' } }))))
      .when(update({ meta_data: { a: '', c: '3' } }))
      .then((events) => expect(events[0].data).toMatchObject({ meta_data: { b: '2', c: '3' }, changes: { meta_data: { b: '2', c: '3' } } }));
    given(subscriptionDecider, active()).when(update({ meta_data: { k: 'v'.repeat(256) } })).thenRejects('parameter_invalid', 'meta_data[k]');
    const after = history(create(collectInput({ meta_data: { a: '1', b: '2' } })), update({ meta_data: { a: '', c: '3' } }));
    expect(fieldsOf(after).meta_data).toEqual({ b: '2', c: '3' });
  });

  test('renewal_invoicing, invoice_settings (merged) and invoice_retentions (merged, checked)', () => {
    given(subscriptionDecider, history(create(collectInput({ invoice_settings: { invoice_document_id: 'DOC-1' }, invoice_retentions: { retefte: '2.5' } }))))
      .when(update({ renewal_invoicing: false, invoice_settings: { invoice_cost_center: 'CC-1' }, invoice_retentions: { reteica: '9.66' } }))
      .then((events) =>
        expect(events[0].data).toMatchObject({
          changes: {
            renewal_invoicing: false,
            invoice_settings: { invoice_document_id: 'DOC-1', invoice_cost_center: 'CC-1' },
            invoice_retentions: { reteiva: null, reteica: '9.66', retefte: '2.5' },
          },
        }),
      );
    given(subscriptionDecider, active()).when(update({ invoice_retentions: { reteica: 'abc' } })).thenRejects('parameter_invalid', 'invoice_retentions[reteica]');
  });

  test('nothing to change records nothing', () => {
    given(subscriptionDecider, active()).when(update({})).then([]);
  });

  test('a paused or pending_cancel subscription can still be updated; a final one cannot (409 naming the state)', () => {
    given(subscriptionDecider, paused()).when(update({ meta_data: { a: '1' } })).then((events) => expect(events[0].data).toMatchObject({ status: 'paused' }));
    given(subscriptionDecider, pendingCancel()).when(update({ meta_data: { a: '1' } })).then((events) => expect(events).toHaveLength(1));
    for (const [past, status] of [
      [canceled(), 'canceled'],
      [createdIn('ended'), 'ended'],
      [createdIn('expired'), 'expired'],
    ] as const) {
      const e = given(subscriptionDecider, past).when(update({ meta_data: { a: '1' } })).thenRejects('invalid_state', null);
      expect(e.message).toBe(`Cannot update subscription sub_1: its status is ${status}`);
      expect(e.status).toBe(409);
    }
  });
});

describe('subscription: delete a discount', () => {
  const withDiscounts = () => history(create(collectInput({ discounts: [{ code: 'WELCOME', amount: '1000' }, { code: 'TENOFF', percent: '10' }] })));

  test('removes that discount and keeps the others', () => {
    given(subscriptionDecider, withDiscounts())
      .when(deleteDiscount('sd_1'))
      .then((events) =>
        expect(events[0]).toMatchObject({
          type: 'subscription.updated',
          data: { status: 'active', reason: 'api', changes: { discounts: [{ id: 'sd_2', code: 'TENOFF', amount: null, percent: '10', duration_in_collections: null }] } },
        }),
      );
    expect(fieldsOf([...withDiscounts(), ...subscriptionDecider.decide(deleteDiscount('sd_1'), fold(subscriptionDecider, withDiscounts()))]).discounts.map((d) => d.id)).toEqual(['sd_2']);
  });

  test('an unknown discount is not found; a final subscription refuses', () => {
    const e = given(subscriptionDecider, withDiscounts()).when(deleteDiscount('sd_9')).thenRejects('resource_missing', 'id');
    expect(e.message).toBe("No such subscription discount: 'sd_9'");
    const final = history(create(collectInput({ discounts: [{ code: 'WELCOME', amount: '1000' }] })), cancel('now'));
    expect(given(subscriptionDecider, final).when(deleteDiscount('sd_1')).thenRejects('invalid_state').message).toBe('Cannot delete a discount of subscription sub_1: its status is canceled');
  });
});

describe('subscription: shipping', () => {
  const shipping = {
    name: 'Ana Gómez',
    phone: '+57 300 123 4567',
    address: { address_1: 'Calle 100 # 8A-55', address_2: null, city: 'Bogotá', state: 'Cundinamarca', postcode: '110111', country: 'CO' },
  };
  const setShipping = (s: typeof shipping | null): SubscriptionCommand => ({ type: 'SetShipping', owner, subscriptionId: id, shipping: s, now: at(2) });
  const setShippingItem = (s: { description: string; amount: string } | null): SubscriptionCommand => ({ type: 'SetShippingItem', owner, subscriptionId: id, shippingItem: s, now: at(2) });

  test('the shipping address is set and cleared', () => {
    given(subscriptionDecider, active())
      .when(setShipping(shipping))
      .then((events) => expect(events[0]).toMatchObject({ type: 'subscription.updated', data: { status: 'active', reason: 'api', changes: { shipping } } }));
    expect(fieldsOf(history(create(collectInput()), setShipping(shipping))).shipping).toEqual(shipping);
    expect(fieldsOf(history(create(collectInput()), setShipping(shipping), setShipping(null))).shipping).toBeNull();
  });

  test('the shipping item is set with its amount in the subscription currency, and cleared', () => {
    given(subscriptionDecider, active())
      .when(setShippingItem({ description: ' Envío nacional ', amount: '15000' }))
      .then((events) => expect(events[0].data).toMatchObject({ changes: { shipping_item: { description: 'Envío nacional', amount: '15000.00' } } }));
    given(subscriptionDecider, active()).when(setShippingItem(null)).then((events) => expect(events[0].data).toMatchObject({ changes: { shipping_item: null } }));
  });

  test('a shipping item needs a positive amount and a description', () => {
    given(subscriptionDecider, active()).when(setShippingItem({ description: 'Envío', amount: '0' })).thenRejects('parameter_invalid');
    given(subscriptionDecider, active()).when(setShippingItem({ description: 'Envío', amount: '1.001' })).thenRejects('parameter_invalid');
    given(subscriptionDecider, active()).when(setShippingItem({ description: '  ', amount: '15000' })).thenRejects('parameter_missing');
  });

  test('a final subscription refuses shipping changes (409 naming the state)', () => {
    expect(given(subscriptionDecider, canceled()).when(setShipping(shipping)).thenRejects('invalid_state').message).toBe(
      'Cannot change the shipping of subscription sub_1: its status is canceled',
    );
    expect(given(subscriptionDecider, canceled()).when(setShippingItem(null)).thenRejects('invalid_state').message).toBe(
      'Cannot change the shipping item of subscription sub_1: its status is canceled',
    );
  });
});

describe('subscription: tenancy', () => {
  test('a subscription that does not exist, or of another account or mode, is not found', () => {
    const e = given(subscriptionDecider).when(cancel('now')).thenRejects('resource_missing', 'id');
    expect(e.message).toBe("No such subscription: 'sub_1'");
    expect(e.status).toBe(404);
    given(subscriptionDecider, active()).when(cancel('now', { accountId: 'acct_2', mode: 'test' })).thenRejects('resource_missing', 'id');
    given(subscriptionDecider, active()).when(cancel('now', { accountId: 'acct_1', mode: 'live' })).thenRejects('resource_missing', 'id');
  });
});

describe('discounts for the next collection', () => {
  const discounts = [
    { code: 'FIRST', amount: '1000', duration_in_collections: 1 },
    { code: 'THREE', amount: '500', duration_in_collections: 3 },
    { code: 'ALWAYS', percent: '10' },
  ];

  test('a discount limited to n collections stops after the n-th; one without a limit always applies', () => {
    // A charge subscription counts its first collection: the next is cycle 2.
    const f = fieldsOf(history(create({ discounts })));
    expect(f.collections_count).toBe(1);
    expect(discountsForNextCollection(f).map((d) => d.code)).toEqual(['THREE', 'ALWAYS']);
    expect(discountsForNextCollection({ ...f, collections_count: 3 }).map((d) => d.code)).toEqual(['ALWAYS']);
  });

  test('a trial has counted no collection yet; a trial collection gets every discount', () => {
    const f = fieldsOf(history(create({ discounts, trial_days: 14 })));
    expect(f.collections_count).toBe(0);
    expect(discountsForNextCollection(f).map((d) => d.code)).toEqual(['FIRST', 'THREE', 'ALWAYS']);
    expect(discountsForNextCollection({ ...f, collections_count: 5 }, true).map((d) => d.code)).toEqual(['FIRST', 'THREE', 'ALWAYS']);
  });
});

describe('subscription decider: the first payment never comes', () => {
  const created = () => subscriptionDecider.decide(create(), subscriptionDecider.initialState);
  const expire = (hours: number, checkoutExpired?: boolean): SubscriptionCommand => ({ type: 'ExpireSubscription', owner, subscriptionId: id, now: at(hours), ...(checkoutExpired ? { checkoutExpired } : {}) });
  test('incomplete: expired after its 23-hour window, or earlier when the checkout session that sold it expired unpaid', () => {
    expect(fold(subscriptionDecider as never, created()) as unknown).toMatchObject({ fields: { status: 'incomplete' } });
    given(subscriptionDecider, created()).when(expire(1)).then([]);
    given(subscriptionDecider, created()).when(expire(24)).then(([e]) => expect(e).toMatchObject({ type: 'subscription.expired', data: { collection: 'col_1' } }));
    given(subscriptionDecider, created()).when(expire(1, true)).then(([e]) => expect(e).toMatchObject({ type: 'subscription.expired', data: { collection: 'col_1' } }));
  });
  test('sold by a checkout session: its window is the session\'s expires_at, and only the session\'s expiry ends it (no deadline of its own)', () => {
    const bySession = subscriptionDecider.decide({ ...create(), checkoutSession: { id: 'cs_1', expires_at: at(24).toISOString() } } as SubscriptionCommand, subscriptionDecider.initialState);
    expect(bySession[0].data).toMatchObject({ status: 'incomplete', first_payment_expires_at: at(24).toISOString(), _checkout_session: 'cs_1' });
    const f = (fold(subscriptionDecider as never, bySession) as unknown as { fields: Parameters<typeof subscriptionDeadline>[0] }).fields;
    expect(subscriptionDeadline(f)).toBeNull();
    // Past the 23 hours a subscription of its own would have, nothing expires it; the session's expiry does.
    given(subscriptionDecider, bySession).when(expire(23.5)).then([]);
    given(subscriptionDecider, bySession).when(expire(24, true)).then(([e]) => expect(e).toMatchObject({ type: 'subscription.expired', data: { collection: 'col_1' } }));
    // Without a session: the 23-hour window and its deadline.
    const own = (fold(subscriptionDecider as never, created()) as unknown as { fields: Parameters<typeof subscriptionDeadline>[0] }).fields;
    expect(subscriptionDeadline(own)).toEqual({ kind: 'expire', at: at(FIRST_PAYMENT_WINDOW_HOURS).toISOString() });
  });
  test('an active one never expires, even when asked by an expired checkout', () => {
    const active = [...created(), ...subscriptionDecider.decide(paid('col_1'), fold(subscriptionDecider as never, created()) as never)];
    given(subscriptionDecider, active).when(expire(1, true)).then([]);
  });
});
