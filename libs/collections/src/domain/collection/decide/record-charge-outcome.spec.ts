import { describe, expect, test } from '@jest/globals';
import { given } from '#shared/testing/given.js';
import { type PaymentSource, collectionDecider, transactionInFlight } from '../../collection.decider.js';
import { iso, id, ref, create, card, pse, start, outcome, succeeded, declined, flaky, awaiting, history, stateOf, fieldsOf, types, paidCollection } from '../../testing/collection-fixtures.js';

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
});

describe('collection: one payment at a time', () => {
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
