import { describe, expect, test } from '@jest/globals';
import { priceSnapshot } from '../../testing/price-snapshot.js';
import { fold } from '#shared/decider.js';
import { given } from '#shared/testing/given.js';
import { type CollectionCommand, type CollectionEvent, type CreateCollectionInput, type PaymentSource, collectionDecider } from '../../collection.decider.js';

/**
 * Issue 8: an automatic attempt that cannot reach a gateway (no usable payment method) is a failed
 * attempt: `collection.payment_failed` with its reason and no transaction, counted in
 * `collection_attempts`, at the command's time; past due, it uses up a dunning step and reminds.
 */
const now = new Date('2026-02-28T10:00:00.000Z');
const at = (days: number) => new Date(now.getTime() + days * 86_400_000);
const owner = { accountId: 'acct_1', mode: 'test' as const };
const id = 'col_1';
const ref = { id, subscription: 'sub_1', customer: 'cus_1' };
const missing = { failure_code: 'payment_method_missing', failure_message: 'There is no payment method to charge.' };

const input: CreateCollectionInput = {
  customer: { id: 'cus_1', billing_address: null },
  subscription: 'sub_1',
  currency: 'COP',
  lines: [{ id: 'si_1', price: priceSnapshot('49900.00'), product: { id: 'prod_1', name: 'Plan' }, quantity: 1, rate: null }],
  discounts: [],
  collection_method: 'charge',
  days_until_due: null,
  description: null,
  meta_data: {},
  invoice_settings: { invoice_document_id: null, invoice_cost_center: null },
  invoice_retentions: { reteica: null, retefte: null },
  collection_rule_id: null,
  billing_reason: 'subscription_cycle',
  checkout_url: 'https://checkout.test/col/col_1',
  retry_schedule: { retry_days: [1, 3, 5], final_days: 7 },
  due_immediately: true,
};
const renewal: CollectionCommand = { type: 'CreateCollection', owner, collectionId: id, input, now };
const cannot = (expectedAttempts: number, days = 0, failure = missing): CollectionCommand => ({ type: 'RecordUnattemptablePayment', owner, collectionId: id, failure, expectedAttempts, now: at(days) });
const pastDue: CollectionCommand = { type: 'MarkPastDue', owner, collectionId: id, now };
const advance = (days: number): CollectionCommand => ({ type: 'AdvanceDunning', owner, collectionId: id, now: at(days), canRetry: false });
const card: PaymentSource = { payment_method: 'pm_1', gateway: 'gateway_a', type: 'card', token: 'simtok_approve_x', details: {}, save_as: null };

function history(...commands: CollectionCommand[]): CollectionEvent[] {
  const events: CollectionEvent[] = [];
  for (const c of commands) events.push(...collectionDecider.decide(c, fold(collectionDecider, events)));
  return events;
}
const fieldsOf = (events: CollectionEvent[]) => fold(collectionDecider, events).fields!;

describe('collection: an automatic attempt that cannot reach a gateway', () => {
  test('at the renewal: collection.payment_failed with the reason, no transaction; one attempt; due, so it goes past due next', () => {
    const events = given(collectionDecider, history(renewal))
      .when(cannot(0))
      .then([
        {
          type: 'collection.payment_failed',
          data: { ...ref, transaction: null, charge: null, failure_code: 'payment_method_missing', failure_message: missing.failure_message, decline_code: null, meta_data: {} },
        },
      ]);
    const after = [...history(renewal), ...events];
    expect(fieldsOf(after)).toMatchObject({ status: 'pending', collecting: false, collection_attempts: 1, due_date: now.toISOString() });
    expect(fold(collectionDecider, after).transactions).toEqual([]);
    // Exactly as after a decline: the due date has come, so it goes past due with the first retry date.
    given(collectionDecider, after).when(pastDue).then((e) => {
      expect(e.map((x) => x.type)).toEqual(['collection.past_due']);
      expect(e[0].data).toMatchObject({ next_collection_attempt_date: at(1).toISOString() });
    });
  });

  test('a dunning retry with nothing to charge fails with its reason, uses up the step and reminds the customer', () => {
    const past = history(renewal, cannot(0), pastDue);
    given(collectionDecider, past)
      .when(cannot(1, 1, { failure_code: 'expired_card', failure_message: 'The card expired.' }))
      .then([
        {
          type: 'collection.payment_failed',
          data: {
            ...ref,
            transaction: null,
            charge: null,
            failure_code: 'expired_card',
            failure_message: 'The card expired.',
            decline_code: null,
            meta_data: {},
            dunning_step: 1,
            next_collection_attempt_date: at(3).toISOString(),
          },
        },
        {
          type: 'collection.reminder',
          data: { ...ref, dunning_step: 1, next_collection_attempt_date: at(3).toISOString(), checkout_url: input.checkout_url, sent_at: at(1).toISOString(), meta_data: {} },
        },
      ]);
  });

  test('every retry fails at its time, then uncollectible at the final day (4 attempts, as with a declining card)', () => {
    const events = history(renewal, cannot(0), pastDue, cannot(1, 1), cannot(2, 3), cannot(3, 5), advance(7));
    expect(events.map((e) => e.type)).toEqual([
      'collection.created',
      'collection.payment_failed',
      'collection.past_due',
      'collection.payment_failed',
      'collection.reminder',
      'collection.payment_failed',
      'collection.reminder',
      'collection.payment_failed',
      'collection.reminder',
      'collection.uncollectible',
    ]);
    expect(fieldsOf(events)).toMatchObject({ status: 'uncollectible', collection_attempts: 4, dunning_step: 3, next_collection_attempt_date: null });
  });

  test('it names the attempt it expects: a second worker on the same deadline is refused (attempt_already_made)', () => {
    given(collectionDecider, history(renewal, cannot(0))).when(cannot(0)).thenRejects('attempt_already_made');
  });

  test('refused like any attempt: paid, in flight, voided', () => {
    const paid = history(renewal, { type: 'PayOutOfBand', owner, collectionId: id, proof: null, now });
    given(collectionDecider, paid).when(cannot(0)).thenRejects('collection_already_paid');
    const inFlight = history(renewal, { type: 'StartPayment', owner, collectionId: id, transactionId: 'tx_1', chargeId: 'ch_1', source: card, initiatedBy: 'automatic', now });
    given(collectionDecider, inFlight).when(cannot(1)).thenRejects('payment_in_progress');
    const voided = history(renewal, { type: 'VoidCollection', owner, collectionId: id, now });
    given(collectionDecider, voided).when(cannot(0)).thenRejects('invalid_state');
  });

  test('paid after the failures (a new method): paid, no more dunning deadline', () => {
    const events = history(renewal, cannot(0), pastDue, { type: 'StartPayment', owner, collectionId: id, transactionId: 'tx_1', chargeId: 'ch_1', source: card, initiatedBy: 'automatic', expectedAttempts: 1, now: at(1) }, {
      type: 'RecordChargeOutcome',
      owner,
      collectionId: id,
      chargeId: 'ch_1',
      outcome: { status: 'succeeded', gateway_reference: 'sim_ok' },
      now: at(1),
    });
    expect(fieldsOf(events)).toMatchObject({ status: 'paid', collection_attempts: 2, next_collection_attempt_date: null });
  });
});
