import { describe, expect, test } from '@jest/globals';
import { priceSnapshot } from './testing/price-snapshot.js';
import { fold } from '../../../shared/src/decider.js';
import { given } from '../../../shared/src/testing/given.js';
import type { ExchangeRate } from '../exchange-rates/exchange-rates.port.js';
import {
  type ChargeOutcome,
  type CollectionCommand,
  type CollectionEvent,
  type CollectionUpdated,
  type CreateCollectionInput,
  type InvoiceFigures,
  type ItemlessCollectionInput,
  type OpenCollection,
  type PaymentSource,
  MAX_CHARGES_PER_TRANSACTION,
  collectionDecider,
  paymentOrder,
  planRegisteredPayment,
  transactionInFlight,
} from './collection.decider.js';
import type { Discount, LineInput, PriceSnapshot } from './pricing.js';

const now = new Date('2026-01-31T10:00:00.000Z');
const at = (minutes: number) => new Date(now.getTime() + minutes * 60_000);
const iso = (minutes: number) => at(minutes).toISOString();
const owner = { accountId: 'acct_1', mode: 'test' as const };
const id = 'col_1';
const ref = { id, subscription: 'sub_1', customer: 'cus_1' };

// ---- price snapshots and lines ----

const price = (unit_price: string, over: Partial<PriceSnapshot> = {}): PriceSnapshot => priceSnapshot(unit_price, over);
const oneTime = (unit_price: string) => price(unit_price, { id: 'price_setup', type: 'one_time', billing_period: null, billing_interval: null });
const product = { id: 'prod_1', name: 'Plan Pro' };
const setupProduct = { id: 'prod_2', name: 'Instalación' };
/** The default line: 2 × 59500.00 = 119000.00 COP. */
const line = (over: Partial<LineInput> = {}): LineInput => ({ id: 'si_1', price: price('59500.00'), product, quantity: 2, rate: null, ...over });
const setupLine = (over: Partial<LineInput> = {}): LineInput => ({ id: 'si_2', price: oneTime('19000.00'), product: setupProduct, quantity: 1, rate: null, ...over });
const rate = (from: string, value: string): ExchangeRate => ({ from, to: 'COP', rate: value, as_of: '2026-01-31T09:59:00.000Z', source: 'table' });
const amountOff = (did: string, amount: string, code = 'WELCOME'): Discount => ({ id: did, code, amount, percent: null });
const percentOff = (did: string, percent: string, code = 'TENOFF'): Discount => ({ id: did, code, amount: null, percent });

const address = { address_1: 'Calle 100 # 8A-55', address_2: null, city: 'Bogotá', state: 'Cundinamarca', postcode: '110111', country: 'CO' };

const input = (over: Partial<CreateCollectionInput> = {}): CreateCollectionInput => ({
  customer: { id: 'cus_1', billing_address: address },
  subscription: 'sub_1',
  currency: 'COP',
  lines: [line()],
  discounts: [],
  collection_method: 'charge',
  days_until_due: null,
  description: 'Plan Pro',
  meta_data: { order: '42' },
  invoice_settings: { invoice_document_id: null, invoice_cost_center: null },
  invoice_retentions: { reteica: null, retefte: null },
  collection_rule_id: null,
  billing_reason: 'subscription_create',
  checkout_url: 'https://checkout.test/col/col_1',
  ...over,
});

// ---- commands ----

type Owner = typeof owner | { accountId: string; mode: 'test' | 'live' };
const create = (over: Partial<CreateCollectionInput> = {}, o: Owner = owner): CollectionCommand => ({ type: 'CreateCollection', owner: o, collectionId: id, input: input(over), now });
const collect = (days = 5) => create({ collection_method: 'collect', days_until_due: days });

const card: PaymentSource = { payment_method: 'pm_1', gateway: 'gateway_a', type: 'card', token: 'simtok_approve_abc', details: {}, save_as: null };
const pse: PaymentSource = { payment_method: null, gateway: 'gateway_a', type: 'pse', token: null, details: { bank_code: '1007' }, save_as: null };

const start = (tx = 'tx_1', ch = 'ch_1', source: PaymentSource = card, minutes = 1, o: Owner = owner): CollectionCommand => ({
  type: 'StartPayment',
  owner: o,
  collectionId: id,
  transactionId: tx,
  chargeId: ch,
  source,
  initiatedBy: 'automatic',
  now: at(minutes),
});
const outcome = (ch: string, o: ChargeOutcome, minutes = 2): CollectionCommand => ({ type: 'RecordChargeOutcome', owner, collectionId: id, chargeId: ch, outcome: o, now: at(minutes) });
const retry = (tx: string, ch: string, minutes = 3): CollectionCommand => ({ type: 'RetryCharge', owner, collectionId: id, transactionId: tx, chargeId: ch, now: at(minutes) });
const abandon = (tx: string, minutes = 60): CollectionCommand => ({ type: 'AbandonTransaction', owner, collectionId: id, transactionId: tx, now: at(minutes) });
const payOutOfBand = (proof: string | null, minutes = 5): CollectionCommand => ({ type: 'PayOutOfBand', owner, collectionId: id, proof, now: at(minutes) });
const voidIt = (minutes = 5): CollectionCommand => ({ type: 'VoidCollection', owner, collectionId: id, now: at(minutes) });
const markUncollectible = (minutes = 5): CollectionCommand => ({ type: 'MarkUncollectible', owner, collectionId: id, now: at(minutes) });
const refund = (amount: string | null, refundId = 're_1', minutes = 10): CollectionCommand => ({
  type: 'RefundCollection',
  owner,
  collectionId: id,
  refundId,
  amount,
  reason: 'requested_by_customer',
  now: at(minutes),
});
const send = (minutes = 5): CollectionCommand => ({ type: 'SendCollection', owner, collectionId: id, now: at(minutes) });
const updateItems = (lines: LineInput[]): CollectionCommand => ({ type: 'UpdateCollectionItems', owner, collectionId: id, lines, now: at(5) });
const updateDiscounts = (discounts: Discount[]): CollectionCommand => ({ type: 'UpdateCollectionDiscounts', owner, collectionId: id, discounts, now: at(5) });
const deleteDiscount = (discountId: string): CollectionCommand => ({ type: 'DeleteCollectionDiscount', owner, collectionId: id, discountId, now: at(5) });

const succeeded: ChargeOutcome = { status: 'succeeded', gateway_reference: 'sim_ok' };
const declined: ChargeOutcome = {
  status: 'failed',
  gateway_reference: 'sim_no',
  failure_code: 'card_declined',
  failure_message: 'The card was declined.',
  decline_code: 'generic_decline',
  retryable: false,
};
const flaky: ChargeOutcome = {
  status: 'failed',
  gateway_reference: 'sim_flaky',
  failure_code: 'processing_error',
  failure_message: 'The gateway could not process the charge; retry.',
  decline_code: null,
  retryable: true,
};
const awaiting: ChargeOutcome = {
  status: 'pending',
  gateway_reference: 'sim_wait',
  additional_data: { type: 'redirect', redirect_url: 'https://checkout.test/sim/gateway_a/pse/ch_1', bank_code: '1007' },
};

/** The events a sequence of commands records, each decided on the state the ones before left. */
function history(...commands: CollectionCommand[]): CollectionEvent[] {
  const events: CollectionEvent[] = [];
  for (const c of commands) events.push(...collectionDecider.decide(c, fold(collectionDecider, events)));
  return events;
}
const stateOf = (events: CollectionEvent[]) => fold(collectionDecider, events);
const fieldsOf = (events: CollectionEvent[]) => stateOf(events).fields!;
const types = (events: CollectionEvent[]) => events.map((e) => e.type);

const paidCollection = () => history(create(), start(), outcome('ch_1', succeeded));

// ---------------------------------------------------------------------------------------------

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

  test('collect: the collection is sent at once and due_date = now + days_until_due', () => {
    given(collectionDecider)
      .when(collect(5))
      .then((events) => {
        expect(types(events)).toEqual(['collection.created', 'collection.sent']);
        expect(events[0].data).toMatchObject({ collection_method: 'collect', status: 'pending', due_date: '2026-02-05T10:00:00.000Z' });
        expect(events[1]).toEqual({ type: 'collection.sent', data: { ...ref, sent_at: '2026-01-31T10:00:00.000Z', checkout_url: 'https://checkout.test/col/col_1' } });
      });
    // Across the end of a month: Jan 31 + 30 days = Mar 2 (2026 is not a leap year).
    given(collectionDecider).when(collect(30)).then((events) => expect(events[0].data).toMatchObject({ due_date: '2026-03-02T10:00:00.000Z' }));
    given(collectionDecider).when(collect(0)).then((events) => expect(events[0].data).toMatchObject({ due_date: '2026-01-31T10:00:00.000Z' }));
    // Whole days of 24 hours whatever the host's time zone: 40 days cross the US and EU clock changes of March.
    given(collectionDecider).when(collect(40)).then((events) => expect(events[0].data).toMatchObject({ due_date: '2026-03-12T10:00:00.000Z' }));
    given(collectionDecider).when(collect(60)).then((events) => expect(events[0].data).toMatchObject({ due_date: '2026-04-01T10:00:00.000Z' }));
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

describe('collection: tenancy', () => {
  test('a collection that does not exist, or of another account or mode, is not found', () => {
    const e = given(collectionDecider).when(start()).thenRejects('resource_missing', 'id');
    expect(e.message).toBe("No such collection: 'col_1'");
    expect(e.status).toBe(404);
    given(collectionDecider, history(create())).when(start('tx_1', 'ch_1', card, 1, { accountId: 'acct_2', mode: 'test' })).thenRejects('resource_missing', 'id');
    given(collectionDecider, history(create())).when(start('tx_1', 'ch_1', card, 1, { accountId: 'acct_1', mode: 'live' })).thenRejects('resource_missing', 'id');
  });
});

describe('collection: a payment that succeeds', () => {
  test('pending → paid: transaction.created, charge.created, charge.paid, collection.paid in that order', () => {
    const base = { ...ref, collection: id, transaction: 'tx_1' };
    const started = given(collectionDecider, history(create()))
      .when(start())
      .then([
        {
          type: 'transaction.created',
          data: {
            ...base,
            amount: '119000.00',
            currency: 'COP',
            payment_method: 'pm_1',
            gateway: 'gateway_a',
            payment_method_type: 'card',
            initiated_by: 'automatic',
            created_at: iso(1),
            source: card,
          },
        },
        {
          type: 'charge.created',
          data: { ...base, charge: 'ch_1', try: 1, amount: '119000.00', currency: 'COP', payment_method: 'pm_1', gateway: 'gateway_a', payment_method_type: 'card', created_at: iso(1) },
        },
      ]);
    const whileCollecting = fieldsOf([...history(create()), ...started]);
    expect(whileCollecting).toMatchObject({
      status: 'pending',
      collecting: true,
      collection_attempts: 1,
      latest_transaction: 'tx_1',
      payment_method: 'pm_1',
      payment_method_gateway: 'gateway_a',
      payment_method_type: 'card',
    });
    expect(transactionInFlight(stateOf([...history(create()), ...started]))?.id).toBe('tx_1');

    const paid = given(collectionDecider, history(create(), start()))
      .when(outcome('ch_1', succeeded))
      .then([
        { type: 'charge.paid', data: { ...base, charge: 'ch_1', gateway_reference: 'sim_ok', paid_at: iso(2) } },
        {
          type: 'collection.paid',
          data: {
            ...ref,
            paid_date: iso(2),
            transaction: 'tx_1',
            charge: 'ch_1',
            payment_method: 'pm_1',
            payment_method_gateway: 'gateway_a',
            payment_method_type: 'card',
            paid_out_of_band: false,
            out_of_band_proof: null,
            saved_payment_method: null,
            meta_data: { order: '42' },
          },
        },
      ]);
    const all = [...history(create(), start()), ...paid];
    expect(types(all)).toEqual(['collection.created', 'transaction.created', 'charge.created', 'charge.paid', 'collection.paid']);
    expect(fieldsOf(all)).toMatchObject({ status: 'paid', paid_date: iso(2), collecting: false, collection_attempts: 1, additional_data: null });
    expect(stateOf(all).transactions).toEqual([
      { id: 'tx_1', status: 'succeeded', started_at: iso(1), source: card, amount: '119000.00', charges: [{ id: 'ch_1', try: 1, status: 'succeeded', started_at: iso(1), retryable: false, gateway_reference: 'sim_ok' }] },
    ]);
    expect(transactionInFlight(stateOf(all))).toBeNull();
  });

  test('one-off payment information that succeeds is saved: the collection names the new payment method', () => {
    const oneOff: PaymentSource = { payment_method: null, gateway: 'gateway_a', type: 'card', token: 'simtok_approve_x', details: {}, save_as: { payment_method_id: 'pm_new', card: null, wallet: null } };
    const events = history(create(), start('tx_1', 'ch_1', oneOff), outcome('ch_1', succeeded));
    expect(events[events.length - 1].data).toMatchObject({ payment_method: null, saved_payment_method: 'pm_new' });
    expect(fieldsOf(events).payment_method).toBe('pm_new');
  });

  test('a merchant- or customer-initiated attempt says so', () => {
    given(collectionDecider, history(create()))
      .when({ ...start(), initiatedBy: 'customer' } as CollectionCommand)
      .then((events) => expect(events[0].data).toMatchObject({ initiated_by: 'customer' }));
  });

  test('a paid collection refuses another payment with collection_already_paid (409)', () => {
    const e = given(collectionDecider, paidCollection()).when(start('tx_2', 'ch_2')).thenRejects('collection_already_paid', null);
    expect(e.message).toBe('Cannot pay collection col_1: its status is paid');
    expect(e.status).toBe(409);
    const oob = given(collectionDecider, paidCollection()).when(payOutOfBand(null)).thenRejects('collection_already_paid');
    expect(oob.message).toBe('Cannot pay collection col_1: its status is paid');
    const refunded = history(create(), start(), outcome('ch_1', succeeded), refund(null));
    expect(given(collectionDecider, refunded).when(start('tx_2', 'ch_2')).thenRejects('collection_already_paid').message).toBe('Cannot pay collection col_1: its status is refunded');
  });

  test('an outcome recorded twice records nothing the second time', () => {
    given(collectionDecider, paidCollection()).when(outcome('ch_1', succeeded, 9)).then([]);
    given(collectionDecider, paidCollection()).when(outcome('ch_1', declined, 9)).then([]);
    const failed = history(create(), start(), outcome('ch_1', declined));
    given(collectionDecider, failed).when(outcome('ch_1', declined, 9)).then([]);
    given(collectionDecider, failed).when(outcome('ch_1', succeeded, 9)).then([]);
  });

  test('an outcome for an unknown charge is refused', () => {
    const e = given(collectionDecider, history(create(), start())).when(outcome('ch_9', succeeded)).thenRejects('resource_missing');
    expect(e.message).toBe("No such charge: 'ch_9'");
  });

  test('a collection whose total is 0 cannot be charged', () => {
    // Pending with a 0 total: the discounts were changed after creation.
    const events = history(create(), updateDiscounts([percentOff('sd_1', '100')]));
    expect(fieldsOf(events)).toMatchObject({ status: 'pending', total: '0.00' });
    const e = given(collectionDecider, events).when(start()).thenRejects('invalid_state');
    expect(e.message).toBe('Cannot pay collection col_1: its status is pending with a total of 0');
  });
});

describe('collection: a payment that fails', () => {
  test('declined → charge.failed and collection.payment_failed; the collection stays pending', () => {
    const failed = given(collectionDecider, history(create(), start()))
      .when(outcome('ch_1', declined))
      .then([
        {
          type: 'charge.failed',
          data: {
            ...ref,
            collection: id,
            transaction: 'tx_1',
            charge: 'ch_1',
            gateway_reference: 'sim_no',
            failure_code: 'card_declined',
            failure_message: 'The card was declined.',
            decline_code: 'generic_decline',
            retryable: false,
            failed_at: iso(2),
          },
        },
        {
          type: 'collection.payment_failed',
          data: {
            ...ref,
            transaction: 'tx_1',
            charge: 'ch_1',
            failure_code: 'card_declined',
            failure_message: 'The card was declined.',
            decline_code: 'generic_decline',
            meta_data: { order: '42' },
          },
        },
      ]);
    const events = [...history(create(), start()), ...failed];
    expect(fieldsOf(events)).toMatchObject({ status: 'pending', collecting: false, collection_attempts: 1 });
    expect(stateOf(events).transactions[0]).toMatchObject({ status: 'failed', charges: [{ id: 'ch_1', status: 'failed', retryable: false }] });
  });

  test('after a decline a new attempt is allowed, and may succeed', () => {
    const failed = history(create(), start(), outcome('ch_1', declined));
    given(collectionDecider, failed)
      .when(start('tx_2', 'ch_2', card, 10))
      .then((events) => {
        expect(types(events)).toEqual(['transaction.created', 'charge.created']);
        expect(events[1].data).toMatchObject({ transaction: 'tx_2', charge: 'ch_2', try: 1 });
      });
    const events = history(create(), start(), outcome('ch_1', declined), start('tx_2', 'ch_2', card, 10), outcome('ch_2', succeeded, 11));
    expect(fieldsOf(events)).toMatchObject({ status: 'paid', collection_attempts: 2, latest_transaction: 'tx_2' });
    expect(events[events.length - 1].data).toMatchObject({ transaction: 'tx_2', charge: 'ch_2' });
  });

  test('a retryable failure records charge.failed only; RetryCharge makes a second charge that can succeed', () => {
    const afterFlaky = history(create(), start(), outcome('ch_1', flaky));
    expect(types(afterFlaky).slice(-1)).toEqual(['charge.failed']);
    expect(afterFlaky[afterFlaky.length - 1].data).toMatchObject({ retryable: true, failure_code: 'processing_error' });
    expect(fieldsOf(afterFlaky)).toMatchObject({ status: 'pending', collecting: true });
    expect(transactionInFlight(stateOf(afterFlaky))?.id).toBe('tx_1');

    given(collectionDecider, afterFlaky)
      .when(retry('tx_1', 'ch_2'))
      .then([
        {
          type: 'charge.created',
          data: {
            ...ref,
            collection: id,
            transaction: 'tx_1',
            charge: 'ch_2',
            try: 2,
            amount: '119000.00',
            currency: 'COP',
            payment_method: 'pm_1',
            gateway: 'gateway_a',
            payment_method_type: 'card',
            created_at: iso(3),
          },
        },
      ]);
    const paid = history(create(), start(), outcome('ch_1', flaky), retry('tx_1', 'ch_2'), outcome('ch_2', succeeded, 4));
    expect(types(paid)).toEqual(['collection.created', 'transaction.created', 'charge.created', 'charge.failed', 'charge.created', 'charge.paid', 'collection.paid']);
    expect(paid[paid.length - 1].data).toMatchObject({ transaction: 'tx_1', charge: 'ch_2' });
    expect(fieldsOf(paid)).toMatchObject({ status: 'paid', collection_attempts: 1 });
  });

  test(`a transaction holds at most ${MAX_CHARGES_PER_TRANSACTION} charges: a retry that fails again ends the attempt`, () => {
    given(collectionDecider, history(create(), start(), outcome('ch_1', flaky), retry('tx_1', 'ch_2')))
      .when(outcome('ch_2', flaky, 4))
      .then((events) => {
        expect(types(events)).toEqual(['charge.failed', 'collection.payment_failed']);
        expect(events[0].data).toMatchObject({ charge: 'ch_2', retryable: false });
        expect(events[1].data).toMatchObject({ transaction: 'tx_1', charge: 'ch_2', failure_code: 'processing_error' });
      });
    const ended = history(create(), start(), outcome('ch_1', flaky), retry('tx_1', 'ch_2'), outcome('ch_2', flaky, 4));
    const e = given(collectionDecider, ended).when(retry('tx_1', 'ch_3', 5)).thenRejects('invalid_state');
    expect(e.message).toBe('Transaction tx_1 is not in progress');
    given(collectionDecider, ended).when(start('tx_2', 'ch_3', card, 6)).then((events) => expect(events).toHaveLength(2));
  });

  test('RetryCharge is refused for an unknown, finished or non-retryable transaction, or one whose charge has no outcome yet', () => {
    expect(given(collectionDecider, history(create())).when(retry('tx_9', 'ch_2')).thenRejects('invalid_state').message).toBe('Transaction tx_9 is not in progress');
    expect(given(collectionDecider, history(create(), start())).when(retry('tx_1', 'ch_2')).thenRejects('invalid_state').message).toBe('Transaction tx_1 cannot be retried');
    given(collectionDecider, history(create(), start(), outcome('ch_1', declined))).when(retry('tx_1', 'ch_2')).thenRejects('invalid_state');
    given(collectionDecider, paidCollection()).when(retry('tx_1', 'ch_2')).thenRejects('invalid_state');
  });

  test('AbandonTransaction closes an attempt whose retry never ran, so that a new one can start', () => {
    const stuck = history(create(), start(), outcome('ch_1', flaky));
    given(collectionDecider, stuck)
      .when(abandon('tx_1'))
      .then([
        {
          type: 'collection.payment_failed',
          data: {
            ...ref,
            transaction: 'tx_1',
            charge: 'ch_1',
            failure_code: 'processing_error',
            failure_message: 'The payment attempt was not completed.',
            decline_code: null,
            meta_data: { order: '42' },
          },
        },
      ]);
    const abandoned = history(create(), start(), outcome('ch_1', flaky), abandon('tx_1'));
    expect(fieldsOf(abandoned)).toMatchObject({ status: 'pending', collecting: false });
    given(collectionDecider, abandoned).when(start('tx_2', 'ch_2', card, 61)).then((events) => expect(types(events)).toEqual(['transaction.created', 'charge.created']));
  });

  test('AbandonTransaction records nothing for a charge still without an outcome, a finished or an unknown transaction', () => {
    given(collectionDecider, history(create(), start())).when(abandon('tx_1')).then([]);
    given(collectionDecider, paidCollection()).when(abandon('tx_1')).then([]);
    given(collectionDecider, history(create(), start(), outcome('ch_1', declined))).when(abandon('tx_1')).then([]);
    given(collectionDecider, history(create())).when(abandon('tx_9')).then([]);
  });
});

describe('collection: one payment at a time', () => {
  test('a second StartPayment while one is in flight is refused with payment_in_progress (409)', () => {
    const e = given(collectionDecider, history(create(), start())).when(start('tx_2', 'ch_2')).thenRejects('payment_in_progress', null);
    expect(e.message).toBe('Cannot pay collection col_1: another payment attempt is in progress');
    expect(e.status).toBe(409);
    // Also while a retryable failure awaits its retry.
    given(collectionDecider, history(create(), start(), outcome('ch_1', flaky))).when(start('tx_2', 'ch_2')).thenRejects('payment_in_progress');
  });

  test('a pending outcome: charge.pending, status processing with additional_data', () => {
    given(collectionDecider, history(create(), start('tx_1', 'ch_1', pse)))
      .when(outcome('ch_1', awaiting))
      .then([
        {
          type: 'charge.pending',
          data: { ...ref, collection: id, transaction: 'tx_1', charge: 'ch_1', gateway_reference: 'sim_wait', additional_data: awaiting.status === 'pending' ? awaiting.additional_data : {} },
        },
      ]);
    const processing = history(create(), start('tx_1', 'ch_1', pse), outcome('ch_1', awaiting));
    expect(fieldsOf(processing)).toMatchObject({
      status: 'processing',
      collecting: false,
      payment_method: null,
      payment_method_gateway: 'gateway_a',
      payment_method_type: 'pse',
      additional_data: { type: 'redirect', redirect_url: 'https://checkout.test/sim/gateway_a/pse/ch_1', bank_code: '1007' },
    });
    expect(stateOf(processing).transactions[0]).toMatchObject({ status: 'pending', charges: [{ status: 'pending' }] });
  });

  test('while processing, StartPayment is refused with payment_in_progress; the same pending outcome again records nothing', () => {
    const processing = history(create(), start('tx_1', 'ch_1', pse), outcome('ch_1', awaiting));
    const e = given(collectionDecider, processing).when(start('tx_2', 'ch_2', card, 5)).thenRejects('payment_in_progress', null);
    expect(e.message).toBe('Cannot pay collection col_1: its status is processing (a payment awaits the customer)');
    expect(e.status).toBe(409);
    given(collectionDecider, processing).when(outcome('ch_1', awaiting, 6)).then([]);
  });

  test('processing → paid when the customer completes; additional_data is cleared', () => {
    const processing = history(create(), start('tx_1', 'ch_1', pse), outcome('ch_1', awaiting));
    const paid = given(collectionDecider, processing)
      .when(outcome('ch_1', succeeded, 30))
      .then((events) => {
        expect(types(events)).toEqual(['charge.paid', 'collection.paid']);
        expect(events[1].data).toMatchObject({ payment_method: null, payment_method_gateway: 'gateway_a', payment_method_type: 'pse', paid_date: iso(30) });
      });
    expect(fieldsOf([...processing, ...paid])).toMatchObject({ status: 'paid', additional_data: null });
  });

  test('processing → pending again when the customer does not complete (no retry of a pending charge)', () => {
    const processing = history(create(), start('tx_1', 'ch_1', pse), outcome('ch_1', awaiting));
    const failed = given(collectionDecider, processing)
      .when(outcome('ch_1', { ...flaky, failure_code: 'payment_expired' }, 30))
      .then((events) => {
        expect(types(events)).toEqual(['charge.failed', 'collection.payment_failed']);
        expect(events[0].data).toMatchObject({ retryable: false });
      });
    const after = [...processing, ...failed];
    expect(fieldsOf(after)).toMatchObject({ status: 'pending', additional_data: null, collecting: false });
    given(collectionDecider, after).when(start('tx_2', 'ch_2', card, 31)).then((events) => expect(events).toHaveLength(2));
  });
});

describe('collection: paid out of band', () => {
  test('a pending collection is paid out of band, with or without a proof', () => {
    given(collectionDecider, history(create()))
      .when(payOutOfBand('https://files.example.com/receipt.pdf'))
      .then([
        {
          type: 'collection.paid',
          data: {
            ...ref,
            paid_date: iso(5),
            transaction: null,
            charge: null,
            payment_method: null,
            payment_method_gateway: null,
            payment_method_type: null,
            paid_out_of_band: true,
            out_of_band_proof: 'https://files.example.com/receipt.pdf',
            saved_payment_method: null,
            meta_data: { order: '42' },
          },
        },
      ]);
    const events = history(create(), payOutOfBand(null));
    expect(fieldsOf(events)).toMatchObject({ status: 'paid', paid_out_of_band: true, out_of_band_proof: null, paid_date: iso(5) });
  });

  test('an uncollectible collection can still be paid out of band', () => {
    given(collectionDecider, history(create(), markUncollectible())).when(payOutOfBand(null, 9)).then((events) => expect(types(events)).toEqual(['collection.paid']));
  });

  test('a proof that is not an http(s) URL is refused', () => {
    const e = given(collectionDecider, history(create())).when(payOutOfBand('ftp://x/y')).thenRejects('parameter_invalid', 'out_of_band_proof');
    expect(e.message).toBe('out_of_band_proof must be an http(s) URL');
  });

  test('refused while a payment is in flight or awaits the customer, and when voided', () => {
    const inFlight = given(collectionDecider, history(create(), start())).when(payOutOfBand(null)).thenRejects('payment_in_progress');
    expect(inFlight.message).toBe('Cannot pay out of band collection col_1: its status is collecting');
    const processing = given(collectionDecider, history(create(), start('tx_1', 'ch_1', pse), outcome('ch_1', awaiting))).when(payOutOfBand(null)).thenRejects('payment_in_progress');
    expect(processing.message).toBe('Cannot pay out of band collection col_1: its status is processing');
    const voided = given(collectionDecider, history(create(), voidIt())).when(payOutOfBand(null, 9)).thenRejects('invalid_state');
    expect(voided.message).toBe('Cannot pay collection col_1: its status is voided');
  });
});

describe('collection: void and uncollectible', () => {
  test('a pending collection is voided', () => {
    given(collectionDecider, history(create())).when(voidIt()).then([{ type: 'collection.voided', data: { ...ref, voided_at_date: iso(5) } }]);
    expect(fieldsOf(history(create(), voidIt()))).toMatchObject({ status: 'voided', voided_at_date: iso(5), next_collection_attempt_date: null });
  });

  test('an uncollectible collection can be voided', () => {
    given(collectionDecider, history(create(), markUncollectible())).when(voidIt(9)).then((events) => expect(types(events)).toEqual(['collection.voided']));
  });

  test('void is refused (409 naming the status) when paid, voided, refunded or processing, and while a payment is in flight', () => {
    const refusal = (past: CollectionEvent[], status: string) => {
      const e = given(collectionDecider, past).when(voidIt(20)).thenRejects('invalid_state');
      expect(e.message).toBe(`Cannot void collection col_1: its status is ${status}`);
      expect(e.status).toBe(409);
    };
    refusal(paidCollection(), 'paid');
    refusal(history(create(), voidIt()), 'voided');
    refusal(history(create(), start(), outcome('ch_1', succeeded), refund(null)), 'refunded');
    refusal(history(create(), start('tx_1', 'ch_1', pse), outcome('ch_1', awaiting)), 'processing');
    const e = given(collectionDecider, history(create(), start())).when(voidIt()).thenRejects('payment_in_progress');
    expect(e.message).toBe('Cannot void collection col_1: its status is collecting');
  });

  test('a pending collection is marked uncollectible and can still be paid', () => {
    given(collectionDecider, history(create())).when(markUncollectible()).then([{ type: 'collection.uncollectible', data: { ...ref, marked_at: iso(5) } }]);
    const events = history(create(), markUncollectible());
    expect(fieldsOf(events)).toMatchObject({ status: 'uncollectible' });
    const paid = history(create(), markUncollectible(), start('tx_1', 'ch_1', card, 6), outcome('ch_1', succeeded, 7));
    expect(fieldsOf(paid).status).toBe('paid');
  });

  test('mark uncollectible is refused (409 naming the status) outside pending/past_due, and while a payment is in flight', () => {
    const refusal = (past: CollectionEvent[], status: string) => {
      const e = given(collectionDecider, past).when(markUncollectible(20)).thenRejects('invalid_state');
      expect(e.message).toBe(`Cannot mark uncollectible collection col_1: its status is ${status}`);
    };
    refusal(history(create(), markUncollectible()), 'uncollectible');
    refusal(paidCollection(), 'paid');
    refusal(history(create(), voidIt()), 'voided');
    refusal(history(create(), start('tx_1', 'ch_1', pse), outcome('ch_1', awaiting)), 'processing');
    const e = given(collectionDecider, history(create(), start())).when(markUncollectible()).thenRejects('payment_in_progress');
    expect(e.message).toBe('Cannot mark uncollectible collection col_1: its status is collecting');
  });
});

describe('collection: refund', () => {
  test('a full refund (no amount) refunds what is left: status refunded', () => {
    given(collectionDecider, paidCollection())
      .when(refund(null))
      .then([
        {
          type: 'collection.refunded',
          data: { ...ref, refund: 're_1', amount: '119000.00', amount_refunded: '119000.00', status: 'refunded', charge: 'ch_1', reason: 'requested_by_customer', refunded_at: iso(10) },
        },
      ]);
    expect(fieldsOf(history(create(), start(), outcome('ch_1', succeeded), refund(null)))).toMatchObject({ status: 'refunded', amount_refunded: '119000.00' });
  });

  test('a partial refund keeps the collection paid with amount_refunded; refunding the rest makes it refunded', () => {
    const partial = history(create(), start(), outcome('ch_1', succeeded), refund('19000'));
    expect(partial[partial.length - 1].data).toMatchObject({ amount: '19000.00', amount_refunded: '19000.00', status: 'paid' });
    expect(fieldsOf(partial)).toMatchObject({ status: 'paid', amount_refunded: '19000.00' });
    given(collectionDecider, partial)
      .when(refund(null, 're_2', 11))
      .then((events) => expect(events[0].data).toMatchObject({ refund: 're_2', amount: '100000.00', amount_refunded: '119000.00', status: 'refunded' }));
    given(collectionDecider, partial)
      .when(refund('100000.00', 're_2', 11))
      .then((events) => expect(events[0].data).toMatchObject({ amount: '100000.00', amount_refunded: '119000.00', status: 'refunded' }));
  });

  test('more than what is left to refund is refused', () => {
    const e = given(collectionDecider, paidCollection()).when(refund('119000.01')).thenRejects('parameter_invalid', 'amount');
    expect(e.message).toBe('amount must be at most the refundable 119000.00 COP');
    const partial = history(create(), start(), outcome('ch_1', succeeded), refund('19000'));
    expect(given(collectionDecider, partial).when(refund('100000.01', 're_2')).thenRejects('parameter_invalid', 'amount').message).toBe(
      'amount must be at most the refundable 100000.00 COP',
    );
  });

  test('a refund amount must be a positive amount with the currency digits', () => {
    for (const bad of ['0', '-5', 'abc', '1e3']) {
      expect(given(collectionDecider, paidCollection()).when(refund(bad)).thenRejects('parameter_invalid', 'amount').message).toBe('amount must be a positive decimal amount');
    }
    expect(given(collectionDecider, paidCollection()).when(refund('1.001')).thenRejects('parameter_invalid', 'amount').message).toBe('amount has more decimals than COP allows (2)');
  });

  test('only a paid collection is refunded (409 naming the status)', () => {
    expect(given(collectionDecider, history(create())).when(refund(null)).thenRejects('invalid_state').message).toBe('Cannot refund collection col_1: its status is pending');
    const refunded = history(create(), start(), outcome('ch_1', succeeded), refund(null));
    expect(given(collectionDecider, refunded).when(refund(null, 're_2')).thenRejects('invalid_state').message).toBe('Cannot refund collection col_1: its status is refunded');
  });

  test('a collection paid at 0 has nothing to refund', () => {
    const free = history(create({ lines: [line({ free: true })] }));
    const e = given(collectionDecider, free).when(refund(null)).thenRejects('invalid_state');
    expect(e.message).toBe('Cannot refund collection col_1: its status is paid with nothing left to refund');
  });

  test('a collection paid out of band is refunded without a charge', () => {
    given(collectionDecider, history(create(), payOutOfBand(null)))
      .when(refund(null))
      .then((events) => expect(events[0].data).toMatchObject({ charge: null, status: 'refunded', amount: '119000.00' }));
  });
});

describe('collection: send', () => {
  test('a pending or processing collection is sent (again) with its checkout url', () => {
    given(collectionDecider, history(collect()))
      .when(send(60))
      .then([{ type: 'collection.sent', data: { ...ref, sent_at: iso(60), checkout_url: 'https://checkout.test/col/col_1' } }]);
    given(collectionDecider, history(create(), start('tx_1', 'ch_1', pse), outcome('ch_1', awaiting))).when(send()).then((events) => expect(types(events)).toEqual(['collection.sent']));
  });

  test('refused (409 naming the status) once paid, voided or uncollectible', () => {
    expect(given(collectionDecider, paidCollection()).when(send()).thenRejects('invalid_state').message).toBe('Cannot send collection col_1: its status is paid');
    expect(given(collectionDecider, history(create(), voidIt())).when(send(9)).thenRejects('invalid_state').message).toBe('Cannot send collection col_1: its status is voided');
    given(collectionDecider, history(create(), markUncollectible())).when(send(9)).thenRejects('invalid_state');
  });
});

describe('collection: items and discounts', () => {
  test('new items are priced and the totals recomputed with the discounts kept', () => {
    const past = history(create({ discounts: [percentOff('sd_1', '10')] }));
    given(collectionDecider, past)
      .when(updateItems([line({ quantity: 3 }), setupLine()]))
      .then((events) => {
        // 3 × 59500 = 178500 + 19000 = 197500; 10% = 19750 → 177750
        expect(events).toEqual([
          {
            type: 'collection.updated',
            data: {
              ...ref,
              changes: {
                items: [
                  { id: 'si_1', name: 'Plan Pro', unit_price: '59500.00', subtotal: '178500.00', total: '178500.00', quantity: 3, product, price: price('59500.00') },
                  { id: 'si_2', name: 'Instalación', unit_price: '19000.00', subtotal: '19000.00', total: '19000.00', quantity: 1, product: setupProduct, price: oneTime('19000.00') },
                ],
                discounts: [{ id: 'sd_1', code: 'TENOFF', amount: null, percent: '10' }],
                subtotal: '197500.00',
                total: '177750.00',
                exchange_rates: [],
                discount_amounts: { sd_1: '19750.00' },
              },
            },
          },
        ]);
      });
    const after = history(create({ discounts: [percentOff('sd_1', '10')] }), updateItems([line({ quantity: 3 }), setupLine()]));
    expect(fieldsOf(after)).toMatchObject({ subtotal: '197500.00', total: '177750.00', status: 'pending' });
    // The next attempt charges the new total.
    given(collectionDecider, after).when(start()).then((events) => expect(events[0].data).toMatchObject({ amount: '177750.00' }));
  });

  test('new items in another currency bring their rate; items in the collection currency drop the old one', () => {
    const usd = rate('USD', '4000');
    const converted = history(create({ lines: [line({ price: price('29.75', { currency: 'USD' }), quantity: 1, rate: usd })] }));
    expect(fieldsOf(converted).exchange_rates).toEqual([usd]);
    given(collectionDecider, converted)
      .when(updateItems([line({ price: price('29.75', { currency: 'USD' }), quantity: 2, rate: usd })]))
      .then((events) => expect(events[0].data).toMatchObject({ changes: { subtotal: '238000.00', exchange_rates: [usd] } }));
    given(collectionDecider, converted).when(updateItems([line()])).then((events) => expect(events[0].data).toMatchObject({ changes: { total: '119000.00', exchange_rates: [] } }));
  });

  test('new discounts recompute the totals and keep the items and the conversion rates', () => {
    const usd = rate('USD', '4000');
    const converted = history(create({ lines: [line({ price: price('29.75', { currency: 'USD' }), quantity: 1, rate: usd })] }));
    given(collectionDecider, converted)
      .when(updateDiscounts([amountOff('sd_1', '9000'), percentOff('sd_2', '5')]))
      .then((events) => {
        // 119000 - 9000 - 5% of 119000 (5950) = 104050
        expect((events[0] as CollectionUpdated).data.changes).toEqual({
          items: fieldsOf(converted).items,
          discounts: [
            { id: 'sd_1', code: 'WELCOME', amount: '9000.00', percent: null },
            { id: 'sd_2', code: 'TENOFF', amount: null, percent: '5' },
          ],
          subtotal: '119000.00',
          total: '104050.00',
          exchange_rates: [usd],
          discount_amounts: { sd_1: '9000.00', sd_2: '5950.00' },
        });
      });
    given(collectionDecider, converted).when(updateDiscounts([percentOff('sd_1', '101')])).thenRejects('parameter_invalid', 'discounts[0][percent]');
  });

  test('deleting a discount recomputes the totals', () => {
    const past = history(create({ discounts: [amountOff('sd_1', '9000'), percentOff('sd_2', '5')] }));
    expect(fieldsOf(past).total).toBe('104050.00');
    given(collectionDecider, past)
      .when(deleteDiscount('sd_1'))
      .then((events) =>
        // 119000 - 5950 = 113050
        expect((events[0] as CollectionUpdated).data.changes).toMatchObject({ discounts: [{ id: 'sd_2' }], subtotal: '119000.00', total: '113050.00', discount_amounts: { sd_2: '5950.00' } }),
      );
    const e = given(collectionDecider, past).when(deleteDiscount('sd_9')).thenRejects('resource_missing', 'id');
    expect(e.message).toBe("No such discount: 'sd_9'");
  });

  test('items must not be empty', () => {
    expect(given(collectionDecider, history(create())).when(updateItems([])).thenRejects('parameter_invalid', 'items').message).toBe('items must have at least one item');
  });

  test('refused (409 naming the status) once paid or processing, and while a payment is in flight', () => {
    expect(given(collectionDecider, paidCollection()).when(updateItems([line()])).thenRejects('invalid_state').message).toBe('Cannot modify the items of collection col_1: its status is paid');
    expect(given(collectionDecider, paidCollection()).when(updateDiscounts([])).thenRejects('invalid_state').message).toBe('Cannot modify the discounts of collection col_1: its status is paid');
    given(collectionDecider, paidCollection()).when(deleteDiscount('sd_1')).thenRejects('invalid_state');
    given(collectionDecider, history(create(), start('tx_1', 'ch_1', pse), outcome('ch_1', awaiting))).when(updateItems([line()])).thenRejects('invalid_state');
    given(collectionDecider, history(create(), markUncollectible())).when(updateItems([line()])).thenRejects('invalid_state');
    const e = given(collectionDecider, history(create(), start())).when(updateItems([line()])).thenRejects('payment_in_progress');
    expect(e.message).toBe('Cannot modify the items of collection col_1: its status is collecting');
    given(collectionDecider, history(create(), start())).when(updateDiscounts([])).thenRejects('payment_in_progress');
  });
});

// ---- documented-in-full endpoints: partial_payment, update/total, register_invoices_payment ----

const partial = (amount: string, balance: { collectionId: string; days_until_due: number | null; collection_rule_id: string | null } | null = null, minutes = 5): CollectionCommand => ({
  type: 'DefinePartialPayment',
  owner,
  collectionId: id,
  amount,
  balance,
  now: at(minutes),
});
const itemless = (over: Partial<ItemlessCollectionInput> = {}): CollectionCommand => ({
  type: 'CreateItemlessCollection',
  owner,
  collectionId: id,
  input: {
    kind: 'balance',
    customer: { id: 'cus_1', billing_address: address },
    subscription: 'sub_1',
    currency: 'COP',
    total: '19000',
    description: 'Balance of col_0',
    meta_data: { order: '42' },
    invoice_settings: { invoice_document_id: null, invoice_cost_center: null },
    invoice_retentions: { reteica: null, retefte: null },
    collection_rule_id: 'rule_1',
    due_date: iso(10 * 24 * 60),
    balance_of: 'col_0',
    applied_to: null,
    billing_reason: 'partial_payment_balance',
    checkout_url: 'https://checkout.test/col/col_1',
    ...over,
  },
  now,
});
const invoice = (over: Partial<InvoiceFigures> = {}): InvoiceFigures => ({ id: 'col_0', total: '119000.00', total_paid: '0.00', other_totals: '100000.00', ...over });
const updateTotal = (total: string, inv: InvoiceFigures = invoice(), minutes = 5): CollectionCommand => ({ type: 'UpdateCollectionTotal', owner, collectionId: id, total, invoice: inv, now: at(minutes) });
const applyPayment = (amount: string, expectedTotal: string, receiptId = 'col_r', minutes = 5): CollectionCommand => ({
  type: 'ApplyRegisteredPayment',
  owner,
  collectionId: id,
  receiptId,
  amount,
  expectedTotal,
  now: at(minutes),
});

describe('collection: partial payment', () => {
  test('the total of a collect collection becomes the amount; subtotal and items are kept and the partial payment recorded', () => {
    given(collectionDecider, history(collect()))
      .when(partial('100000'))
      .then([
        {
          type: 'collection.partial_payment_defined',
          data: {
            ...ref,
            partial_payment: { original_total: '119000.00', amount: '100000.00', balance: '19000.00', balance_collection: null },
            total: '100000.00',
            defined_at: iso(5),
            balance_due_date: null,
            balance_collection_rule_id: null,
          },
        },
      ]);
    const f = fieldsOf(history(collect(), partial('100000')));
    expect(f).toMatchObject({ status: 'pending', total: '100000.00', subtotal: '119000.00', partial_payment: { original_total: '119000.00', balance: '19000.00' } });
    expect(f.items).toEqual(fieldsOf(history(collect())).items);
    // The next attempt charges the partial amount.
    given(collectionDecider, history(collect(), partial('100000'))).when(start()).then((events) => expect(events[0].data).toMatchObject({ amount: '100000.00' }));
  });

  test('with a balance collection the event names it, its due date (now + days_until_due) and its rule; a past_due collection qualifies', () => {
    given(collectionDecider, history(collect()))
      .when(partial('100000.5', { collectionId: 'col_2', days_until_due: 10, collection_rule_id: 'rule_1' }))
      .then((events) =>
        expect(events[0].data).toMatchObject({
          partial_payment: { original_total: '119000.00', amount: '100000.50', balance: '18999.50', balance_collection: 'col_2' },
          total: '100000.50',
          balance_due_date: new Date(at(5).getTime() + 10 * 86_400_000).toISOString(),
          balance_collection_rule_id: 'rule_1',
        }),
      );
    const pastDue = history(collect(1), { type: 'MarkPastDue', owner, collectionId: id, now: at(2 * 24 * 60) });
    expect(fieldsOf(pastDue).status).toBe('past_due');
    given(collectionDecider, pastDue).when(partial('1', null, 3 * 24 * 60)).then((events) => expect(types(events)).toEqual(['collection.partial_payment_defined']));
  });

  test('only type invoice with collection_method collect (400, the spec rejection row)', () => {
    const e = given(collectionDecider, history(create())).when(partial('100000')).thenRejects('partial_payment_not_allowed', null);
    expect(e.status).toBe(400);
    expect(e.message).toBe('partial_payment is only valid for a collection with type invoice and collection_method collect; collection col_1 has type invoice and collection_method charge');
  });

  test('only pending or past_due with no attempt in flight (409 naming the state)', () => {
    const paid = history(collect(), payOutOfBand(null));
    const e = given(collectionDecider, paid).when(partial('1', null, 9)).thenRejects('invalid_state');
    expect(e.status).toBe(409);
    expect(e.message).toBe('Cannot define a partial payment on collection col_1: its status is paid');
    expect(given(collectionDecider, history(collect(), voidIt())).when(partial('1', null, 9)).thenRejects('invalid_state').message).toBe(
      'Cannot define a partial payment on collection col_1: its status is voided',
    );
    expect(given(collectionDecider, history(collect(), markUncollectible())).when(partial('1', null, 9)).thenRejects('invalid_state').message).toContain('its status is uncollectible');
    expect(given(collectionDecider, history(collect(), start('tx_1', 'ch_1', pse), outcome('ch_1', awaiting))).when(partial('1')).thenRejects('invalid_state').message).toContain(
      'its status is processing',
    );
    const inFlight = given(collectionDecider, history(collect(), start())).when(partial('1')).thenRejects('payment_in_progress');
    expect(inFlight.message).toBe('Cannot define a partial payment on collection col_1: its status is collecting');
  });

  test('the amount: more than 0, less than the total, the currency digits', () => {
    const past = history(collect());
    expect(given(collectionDecider, past).when(partial('119000')).thenRejects('parameter_invalid', 'amount').message).toBe('amount must be less than the total of collection col_1 (119000.00 COP)');
    given(collectionDecider, past).when(partial('119000.01')).thenRejects('parameter_invalid', 'amount');
    for (const bad of ['0', '0.00', '-1', 'abc']) given(collectionDecider, past).when(partial(bad)).thenRejects('parameter_invalid', 'amount');
    expect(given(collectionDecider, past).when(partial('1.001')).thenRejects('parameter_invalid', 'amount').message).toBe('amount has more decimals than COP allows (2)');
  });

  test('a balance collection needs days_until_due', () => {
    const e = given(collectionDecider, history(collect())).when(partial('1', { collectionId: 'col_2', days_until_due: null, collection_rule_id: null })).thenRejects('parameter_missing', 'days_until_due');
    expect(e.message).toBe('days_until_due is required with create_collection_with_balance');
  });

  test('once per collection, and not after a registered payment was applied to it', () => {
    const e = given(collectionDecider, history(collect(), partial('100000'))).when(partial('50000', null, 6)).thenRejects('invalid_state');
    expect(e.message).toBe('Cannot define a partial payment on collection col_1: a partial payment of 100000.00 is already defined on it');
    const applied = history(collect(), applyPayment('1000', '119000.00'));
    expect(given(collectionDecider, applied).when(partial('50000', null, 6)).thenRejects('invalid_state').message).toBe(
      'Cannot define a partial payment on collection col_1: a registered payment of 1000.00 was already applied to it',
    );
  });

  test('a total set directly is not recomputed from items or discounts afterwards (409)', () => {
    const past = history(collect(), partial('100000'));
    expect(given(collectionDecider, past).when(updateItems([line()])).thenRejects('invalid_state').message).toBe(
      'Cannot modify the items of collection col_1: its total was set directly (a partial payment is defined on it), not from items and discounts',
    );
    given(collectionDecider, past).when(updateDiscounts([])).thenRejects('invalid_state');
    expect(given(collectionDecider, history(itemless())).when(updateDiscounts([])).thenRejects('invalid_state').message).toContain('(it has no items)');
    expect(given(collectionDecider, history(collect(), applyPayment('1', '119000.00'))).when(updateItems([line()])).thenRejects('invalid_state').message).toContain(
      '(a registered payment was applied to it)',
    );
  });
});

describe('collection: without items (balance, receipt)', () => {
  test('a balance collection: collect, no items, subtotal = total, due on the given date, created and sent', () => {
    const events = given(collectionDecider).when(itemless()).events();
    expect(types(events)).toEqual(['collection.created', 'collection.sent']);
    expect(events[0].data).toMatchObject({
      items: null,
      discounts: [],
      subtotal: '19000.00',
      total: '19000.00',
      status: 'pending',
      collection_method: 'collect',
      due_date: iso(10 * 24 * 60),
      description: 'Balance of col_0',
      balance_of: 'col_0',
      collection_rule_id: 'rule_1',
      billing_reason: 'partial_payment_balance',
      partial_payment: null,
      amount_applied: '0.00',
      applied_to: null,
      meta_data: { order: '42' },
    });
    expect(events[1].data).toEqual({ ...ref, sent_at: now.toISOString(), checkout_url: 'https://checkout.test/col/col_1' });
    // It goes past due and is paid like any collect collection.
    const f = fieldsOf(history(itemless(), { type: 'MarkPastDue', owner, collectionId: id, now: at(11 * 24 * 60) }, payOutOfBand(null, 11 * 24 * 60 + 1)));
    expect(f).toMatchObject({ status: 'paid', items: null, total: '19000.00' });
    given(collectionDecider).when(itemless({ due_date: null })).thenRejects('parameter_missing', 'days_until_due');
  });

  test('a receipt: created and paid out of band at once, with what the payment was applied to', () => {
    const events = given(collectionDecider)
      .when(itemless({ kind: 'receipt', subscription: null, total: '30000', due_date: null, balance_of: null, collection_rule_id: null, applied_to: [{ collection: 'col_a', amount: '30000' }], billing_reason: 'invoices_payment' }))
      .events();
    expect(types(events)).toEqual(['collection.created', 'collection.paid']);
    expect(events[0].data).toMatchObject({ items: null, total: '30000.00', subtotal: '30000.00', due_date: null, applied_to: [{ collection: 'col_a', amount: '30000.00' }] });
    expect(events[1].data).toMatchObject({ paid_date: now.toISOString(), paid_out_of_band: true });
    const e = given(collectionDecider).when(itemless({ kind: 'receipt', total: '100', applied_to: [{ collection: 'col_a', amount: '100.01' }] })).thenRejects('parameter_invalid', 'amount');
    expect(e.message).toBe('The amounts applied (100.01) exceed the payment (100.00)');
    given(collectionDecider).when(itemless({ total: '0' })).thenRejects('parameter_invalid', 'amount');
  });
});

describe('collection: update total (the spec five conditions)', () => {
  const balance = () => history(itemless());

  test('the total of a collection without items changes within its invoice: collection.total_updated', () => {
    given(collectionDecider, balance())
      .when(updateTotal('15000'))
      .then([{ type: 'collection.total_updated', data: { ...ref, previous_total: '19000.00', total: '15000.00', subtotal: '15000.00', invoice: 'col_0', updated_at: iso(5) } }]);
    expect(fieldsOf(history(itemless(), updateTotal('15000')))).toMatchObject({ total: '15000.00', subtotal: '15000.00', items: null });
    // At the limits: total = balance and total + others = invoice total.
    given(collectionDecider, balance()).when(updateTotal('19000.00')).then([]);
    given(collectionDecider, balance()).when(updateTotal('20000', invoice({ other_totals: '99000.00' }))).then((events) => expect(events[0].data).toMatchObject({ total: '20000.00' }));
    // uncollectible qualifies (condition 1).
    given(collectionDecider, history(itemless(), markUncollectible())).when(updateTotal('1', invoice(), 9)).then((events) => expect(types(events)).toEqual(['collection.total_updated']));
  });

  const refused = (past: CollectionEvent[], total: string, inv: InvoiceFigures, message: string, param: string | null = null) => {
    const e = given(collectionDecider, past).when(updateTotal(total, inv, 20)).thenRejects('collection_total_not_updatable', param);
    expect(e.status).toBe(400);
    expect(e.message).toBe(message);
  };

  test('1. status pending, past_due or uncollectible', () => {
    refused(history(itemless(), payOutOfBand(null)), '1', invoice(), 'Cannot update the total of collection col_1: its status is paid; it must be pending, past_due or uncollectible');
    refused(history(itemless(), voidIt()), '1', invoice(), 'Cannot update the total of collection col_1: its status is voided; it must be pending, past_due or uncollectible');
  });

  test('2. no items', () => {
    refused(history(collect()), '1', invoice(), 'Cannot update the total of collection col_1: it has items; only a collection without items (items null) can have its total set');
  });

  test('3. type invoice', () => {
    const created = history(itemless())[0] as CollectionEvent & { data: Record<string, unknown> };
    const other = [{ ...created, data: { ...created.data, type: 'receipt' } } as unknown as CollectionEvent];
    refused(other, '1', invoice(), 'Cannot update the total of collection col_1: its type is receipt; it must be invoice');
  });

  test('4. the new total is at most the invoice balance (total − total paid)', () => {
    refused(
      balance(),
      '19000.01',
      invoice({ total_paid: '100000.00' }),
      'Cannot update the total of collection col_1: the new total 19000.01 is more than the balance of invoice col_0: 19000.00 (invoice total 119000.00 less 100000.00 paid)',
      'total',
    );
  });

  test('5. the new total plus the other collections of the invoice is at most the invoice total', () => {
    refused(
      balance(),
      '19000.01',
      invoice(),
      'Cannot update the total of collection col_1: the new total 19000.01 plus the totals of the other collections of invoice col_0 (100000.00) is 119000.01, more than the invoice total 119000.00',
      'total',
    );
  });

  test('a bad total is 400 parameter_invalid; an attempt in flight is 409', () => {
    for (const bad of ['0', '-1', 'x']) given(collectionDecider, balance()).when(updateTotal(bad)).thenRejects('parameter_invalid', 'total');
    given(collectionDecider, balance()).when(updateTotal('1.001')).thenRejects('parameter_invalid', 'total');
    given(collectionDecider, history(itemless(), start())).when(updateTotal('1')).thenRejects('payment_in_progress');
  });
});

describe('collection: a registered payment applied', () => {
  test('an amount that covers the total pays it out of band, naming the receipt', () => {
    given(collectionDecider, history(collect()))
      .when(applyPayment('119000', '119000.00'))
      .then([
        {
          type: 'collection.paid',
          data: {
            ...ref,
            paid_date: iso(5),
            transaction: null,
            charge: null,
            payment_method: null,
            payment_method_gateway: null,
            payment_method_type: null,
            paid_out_of_band: true,
            out_of_band_proof: null,
            saved_payment_method: null,
            meta_data: { order: '42' },
            paid_by: 'col_r',
          },
        },
      ]);
    expect(fieldsOf(history(collect(), applyPayment('119000', '119000.00')))).toMatchObject({ status: 'paid', paid_by: 'col_r', paid_out_of_band: true });
  });

  test('a smaller amount lowers the total and adds to amount_applied', () => {
    given(collectionDecider, history(collect()))
      .when(applyPayment('19000', '119000.00'))
      .then([
        {
          type: 'collection.payment_applied',
          data: { ...ref, receipt: 'col_r', amount: '19000.00', amount_applied: '19000.00', previous_total: '119000.00', total: '100000.00', applied_at: iso(5), meta_data: { order: '42' } },
        },
      ]);
    const twice = history(collect(), applyPayment('19000', '119000.00'), applyPayment('50000.5', '100000', 'col_s', 6));
    expect(fieldsOf(twice)).toMatchObject({ status: 'pending', total: '49999.50', subtotal: '119000.00', amount_applied: '69000.50', paid_by: null });
    expect(fieldsOf(history(...[collect(), applyPayment('19000', '119000.00'), applyPayment('100000', '100000.00', 'col_s', 6)]))).toMatchObject({
      status: 'paid',
      paid_by: 'col_s',
      amount_applied: '19000.00',
    });
  });

  test('refused when the collection changed since the plan, is paid, voided or being collected', () => {
    const e = given(collectionDecider, history(collect())).when(applyPayment('1', '100.00')).thenRejects('concurrent_update');
    expect(e.status).toBe(409);
    expect(e.message).toBe('Collection col_1 changed while the payment was being applied: its total is 119000.00, not 100.00');
    given(collectionDecider, history(collect(), payOutOfBand(null))).when(applyPayment('1', '119000.00', 'col_r', 9)).thenRejects('collection_already_paid');
    given(collectionDecider, history(collect(), voidIt())).when(applyPayment('1', '119000.00', 'col_r', 9)).thenRejects('invalid_state');
    given(collectionDecider, history(collect(), start())).when(applyPayment('1', '119000.00')).thenRejects('payment_in_progress');
    given(collectionDecider, history(collect())).when(applyPayment('119000.01', '119000.00')).thenRejects('parameter_invalid', 'amount');
  });
});

describe('register_invoices_payment: order and plan', () => {
  const day = 86_400_000;
  const today = new Date('2026-03-10T12:00:00.000Z');
  const rel = (days: number) => new Date(today.getTime() + days * day).toISOString();
  const cop = { code: 'COP', exponent: 2 };
  const open = (cid: string, total: string, due: number | null, over: Partial<OpenCollection> = {}): OpenCollection => ({
    id: cid,
    status: 'pending',
    total,
    due_date: due === null ? null : rel(due),
    created_at: rel(-30),
    collecting: false,
    ...over,
  });
  const collections = [
    open('col_upcoming_far', '40000.00', 13),
    open('col_no_due_new', '7000.00', null, { created_at: rel(-1) }),
    open('col_overdue_recent', '5000.00', -1),
    open('col_upcoming_near', '30000.00', 2),
    open('col_no_due_old', '8000.00', null, { created_at: rel(-20) }),
    open('col_past_due_old', '10000.00', -9, { status: 'past_due' }),
    open('col_uncollectible', '20000.00', -5, { status: 'uncollectible' }),
  ];

  test('overdue first, oldest due date first; then upcoming, nearest first; no due date last, oldest first', () => {
    expect(paymentOrder(collections, today).map((c) => c.id)).toEqual([
      'col_past_due_old',
      'col_uncollectible',
      'col_overdue_recent',
      'col_upcoming_near',
      'col_upcoming_far',
      'col_no_due_old',
      'col_no_due_new',
    ]);
    // A due date exactly now is overdue; past_due is overdue whatever its date says.
    expect(paymentOrder([open('b', '1', 1), open('a', '1', 0), open('c', '1', 5, { status: 'past_due' })], today).map((c) => c.id)).toEqual(['a', 'c', 'b']);
  });

  test('the amount covers collections in that order; the last one partly', () => {
    expect(planRegisteredPayment('cus_1', collections, '70000', cop, today)).toEqual([
      { collection: 'col_past_due_old', amount: '10000.00', expected_total: '10000.00', pays: true },
      { collection: 'col_uncollectible', amount: '20000.00', expected_total: '20000.00', pays: true },
      { collection: 'col_overdue_recent', amount: '5000.00', expected_total: '5000.00', pays: true },
      { collection: 'col_upcoming_near', amount: '30000.00', expected_total: '30000.00', pays: true },
      { collection: 'col_upcoming_far', amount: '5000.00', expected_total: '40000.00', pays: false },
    ]);
    expect(planRegisteredPayment('cus_1', collections, '120000.00', cop, today)).toHaveLength(7);
    expect(planRegisteredPayment('cus_1', collections, '0.01', cop, today)).toEqual([{ collection: 'col_past_due_old', amount: '0.01', expected_total: '10000.00', pays: false }]);
  });

  test('refused before anything is applied: bad amount, nothing open, more than the open balance, an attempt in flight', () => {
    const reject = (fn: () => unknown, code: string) => {
      try {
        fn();
      } catch (e) {
        expect((e as { code: string }).code).toBe(code);
        return e as Error & { status: number; param: string | null };
      }
      throw new Error('not refused');
    };
    for (const bad of ['0', '-1', '1.001']) reject(() => planRegisteredPayment('cus_1', collections, bad, cop, today), 'parameter_invalid');
    const none = reject(() => planRegisteredPayment('cus_1', [], '1', cop, today), 'no_open_collections');
    expect(none.message).toBe('Customer cus_1 has no open collections (pending, past_due or uncollectible) to apply a payment to');
    const over = reject(() => planRegisteredPayment('cus_1', collections, '120000.01', cop, today), 'amount_exceeds_balance');
    expect(over).toMatchObject({ status: 400, param: 'amount', message: 'amount 120000.01 is more than the open balance of customer cus_1: 120000.00 COP over 7 collections' });
    const busy = reject(() => planRegisteredPayment('cus_1', [...collections, open('col_busy', '1.00', 1, { collecting: true })], '1', cop, today), 'payment_in_progress');
    expect(busy).toMatchObject({ status: 409, message: 'Cannot register the payment: collection col_busy has a payment attempt in progress' });
  });

  test('the rest of an interrupted payment goes as far as what is open and not being collected', () => {
    const rest = planRegisteredPayment('cus_1', [open('col_busy', '5.00', -3, { collecting: true }), open('col_a', '3.00', 1)], '10', cop, today, false);
    expect(rest).toEqual([{ collection: 'col_a', amount: '3.00', expected_total: '3.00', pays: true }]);
  });
});
