/** Fixtures of the collection decider specs (collection/decide/*.spec.ts): commands, outcomes and histories. */
import { priceSnapshot } from './price-snapshot.js';
import { fold } from '#shared/decider.js';
import type { ExchangeRate } from '../../exchange-rates/exchange-rates.port.js';
import {
  type ChargeOutcome,
  type CollectionCommand,
  type CollectionEvent,
  type CreateCollectionInput,
  type InvoiceFigures,
  type ItemlessCollectionInput,
  type PaymentSource,
  collectionDecider,
} from '../collection.decider.js';
import type { Discount, LineInput, PriceSnapshot } from '../pricing.js';

export const now = new Date('2026-01-31T10:00:00.000Z');
export const at = (minutes: number) => new Date(now.getTime() + minutes * 60_000);
export const iso = (minutes: number) => at(minutes).toISOString();
export const owner = { accountId: 'acct_1', mode: 'test' as const };
export const id = 'col_1';
export const ref = { id, subscription: 'sub_1', customer: 'cus_1' };

// ---- price snapshots and lines ----

export const price = (unit_price: string, over: Partial<PriceSnapshot> = {}): PriceSnapshot => priceSnapshot(unit_price, over);
export const oneTime = (unit_price: string) => price(unit_price, { id: 'price_setup', type: 'one_time', billing_period: null, billing_interval: null });
export const product = { id: 'prod_1', name: 'Plan Pro' };
export const setupProduct = { id: 'prod_2', name: 'Instalación' };
/** The default line: 2 × 59500.00 = 119000.00 COP. */
export const line = (over: Partial<LineInput> = {}): LineInput => ({ id: 'si_1', price: price('59500.00'), product, quantity: 2, rate: null, ...over });
export const setupLine = (over: Partial<LineInput> = {}): LineInput => ({ id: 'si_2', price: oneTime('19000.00'), product: setupProduct, quantity: 1, rate: null, ...over });
export const rate = (from: string, value: string): ExchangeRate => ({ from, to: 'COP', rate: value, as_of: '2026-01-31T09:59:00.000Z', source: 'table' });
export const amountOff = (did: string, amount: string, code = 'WELCOME'): Discount => ({ id: did, code, amount, percent: null });
export const percentOff = (did: string, percent: string, code = 'TENOFF'): Discount => ({ id: did, code, amount: null, percent });

export const address = { address_1: 'Calle 100 # 8A-55', address_2: null, city: 'Bogotá', state: 'Cundinamarca', postcode: '110111', country: 'CO' };

export const input = (over: Partial<CreateCollectionInput> = {}): CreateCollectionInput => ({
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

export type Owner = typeof owner | { accountId: string; mode: 'test' | 'live' };
export const create = (over: Partial<CreateCollectionInput> = {}, o: Owner = owner): CollectionCommand => ({ type: 'CreateCollection', owner: o, collectionId: id, input: input(over), now });
export const collect = (days = 5) => create({ collection_method: 'collect', days_until_due: days });

export const card: PaymentSource = { payment_method: 'pm_1', gateway: 'gateway_a', type: 'card', token: 'simtok_approve_abc', details: {}, save_as: null };
export const pse: PaymentSource = { payment_method: null, gateway: 'gateway_a', type: 'pse', token: null, details: { bank_code: '1007' }, save_as: null };

export const start = (tx = 'tx_1', ch = 'ch_1', source: PaymentSource = card, minutes = 1, o: Owner = owner): CollectionCommand => ({
  type: 'StartPayment',
  owner: o,
  collectionId: id,
  transactionId: tx,
  chargeId: ch,
  source,
  initiatedBy: 'automatic',
  now: at(minutes),
});
export const outcome = (ch: string, o: ChargeOutcome, minutes = 2): CollectionCommand => ({ type: 'RecordChargeOutcome', owner, collectionId: id, chargeId: ch, outcome: o, now: at(minutes) });
export const retry = (tx: string, ch: string, minutes = 3): CollectionCommand => ({ type: 'RetryCharge', owner, collectionId: id, transactionId: tx, chargeId: ch, now: at(minutes) });
export const abandon = (tx: string, minutes = 60): CollectionCommand => ({ type: 'AbandonTransaction', owner, collectionId: id, transactionId: tx, now: at(minutes) });
export const payOutOfBand = (proof: string | null, minutes = 5): CollectionCommand => ({ type: 'PayOutOfBand', owner, collectionId: id, proof, now: at(minutes) });
export const voidIt = (minutes = 5): CollectionCommand => ({ type: 'VoidCollection', owner, collectionId: id, now: at(minutes) });
export const markUncollectible = (minutes = 5): CollectionCommand => ({ type: 'MarkUncollectible', owner, collectionId: id, now: at(minutes) });
export const refund = (amount: string | null, refundId = 're_1', minutes = 10): CollectionCommand => ({
  type: 'RefundCollection',
  owner,
  collectionId: id,
  refundId,
  amount,
  reason: 'requested_by_customer',
  now: at(minutes),
});
export const send = (minutes = 5): CollectionCommand => ({ type: 'SendCollection', owner, collectionId: id, now: at(minutes) });
export const updateItems = (lines: LineInput[]): CollectionCommand => ({ type: 'UpdateCollectionItems', owner, collectionId: id, lines, now: at(5) });
export const updateDiscounts = (discounts: Discount[]): CollectionCommand => ({ type: 'UpdateCollectionDiscounts', owner, collectionId: id, discounts, now: at(5) });
export const deleteDiscount = (discountId: string): CollectionCommand => ({ type: 'DeleteCollectionDiscount', owner, collectionId: id, discountId, now: at(5) });

export const succeeded: Extract<ChargeOutcome, { status: 'succeeded' }> = { status: 'succeeded', gateway_reference: 'sim_ok' };
export const declined: Extract<ChargeOutcome, { status: 'failed' }> = {
  status: 'failed',
  gateway_reference: 'sim_no',
  failure_code: 'card_declined',
  failure_message: 'The card was declined.',
  decline_code: 'generic_decline',
  retryable: false,
};
export const flaky: Extract<ChargeOutcome, { status: 'failed' }> = {
  status: 'failed',
  gateway_reference: 'sim_flaky',
  failure_code: 'processing_error',
  failure_message: 'The gateway could not process the charge; retry.',
  decline_code: null,
  retryable: true,
};
export const awaiting: Extract<ChargeOutcome, { status: 'pending' }> = {
  status: 'pending',
  gateway_reference: 'sim_wait',
  additional_data: { type: 'redirect', redirect_url: 'https://checkout.test/sim/gateway_a/pse/ch_1', bank_code: '1007' },
};

/** The events a sequence of commands records, each decided on the state the ones before left. */
export function history(...commands: CollectionCommand[]): CollectionEvent[] {
  const events: CollectionEvent[] = [];
  for (const c of commands) events.push(...collectionDecider.decide(c, fold(collectionDecider, events)));
  return events;
}
export const stateOf = (events: CollectionEvent[]) => fold(collectionDecider, events);
export const fieldsOf = (events: CollectionEvent[]) => stateOf(events).fields!;
export const types = (events: CollectionEvent[]) => events.map((e) => e.type);

export const paidCollection = () => history(create(), start(), outcome('ch_1', succeeded));


// ---- documented-in-full endpoints: partial_payment, update/total, register_invoices_payment ----

export const partial = (amount: string, balance: { collectionId: string; days_until_due: number | null; collection_rule_id: string | null } | null = null, minutes = 5): CollectionCommand => ({
  type: 'DefinePartialPayment',
  owner,
  collectionId: id,
  amount,
  balance,
  now: at(minutes),
});
export const itemless = (over: Partial<ItemlessCollectionInput> = {}): CollectionCommand => ({
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
export const invoice = (over: Partial<InvoiceFigures> = {}): InvoiceFigures => ({ id: 'col_0', total: '119000.00', total_paid: '0.00', other_totals: '100000.00', ...over });
export const updateTotal = (total: string, inv: InvoiceFigures = invoice(), minutes = 5): CollectionCommand => ({ type: 'UpdateCollectionTotal', owner, collectionId: id, total, invoice: inv, now: at(minutes) });
export const applyPayment = (amount: string, expectedTotal: string, receiptId = 'col_r', minutes = 5): CollectionCommand => ({
  type: 'ApplyRegisteredPayment',
  owner,
  collectionId: id,
  receiptId,
  amount,
  expectedTotal,
  now: at(minutes),
});
export const credit = (amount: string, expectedTotal: string, creditNoteId = 'cn_1', minutes = 5): CollectionCommand => ({
  type: 'CreditCollection',
  owner,
  collectionId: id,
  creditNoteId,
  invoiceId: 'inv_1',
  amount,
  expectedTotal,
  now: at(minutes),
});
export const reverseCredit = (creditNoteId = 'cn_1', minutes = 6): CollectionCommand => ({ type: 'ReverseCollectionCredit', owner, collectionId: id, creditNoteId, now: at(minutes) });
