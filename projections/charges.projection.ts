import type { CollectionEvent } from '#collections/domain/collection.decider.js';
import { currency, formatAmount } from '#shared/money.js';
import type { Projection } from '#projection-runtime/projection.js';
import type { ChargeDoc, ChargeFields } from '#collections/read-models/charge.read-model.js';
import { newOwnedDoc, TENANT_INDEXES } from '#platform/owned-doc.js';

/** Charges, built from the collection stream's `charge.*` events (and refunds of the paid charge). */
export const chargesProjection: Projection<ChargeDoc> = {
  name: 'charges',
  object: 'charge',
  collection: 'charges',
  collections: [
    {
      name: 'charges',
      indexes: [
        ...TENANT_INDEXES,
        { fields: ['_account', 'is_test', 'collection', '_created'] },
        { fields: ['_account', 'is_test', 'customer', '_created'] },
      ],
    },
  ],
  documentIds: (e) =>
    e.streamId.startsWith('collection-') && (e.type.startsWith('charge.') || e.type === 'collection.refunded') && typeof e.data.charge === 'string'
      ? [e.data.charge]
      : [],
  project(doc, event) {
    const e = event as unknown as CollectionEvent;
    switch (e.type) {
      case 'charge.created': {
        const d = e.data;
        return newOwnedDoc(
          'charge',
          { id: d.charge, account_id: String(event.metadata.account_id), is_test: event.metadata.mode === 'test', created_at: d.created_at },
          {
            collection: d.collection,
            transaction: d.transaction,
            customer: d.customer,
            subscription: d.subscription,
            status: 'in_progress',
            try: d.try,
            amount: d.amount,
            currency: d.currency,
            payment_method: d.payment_method,
            gateway: d.gateway,
            payment_method_type: d.payment_method_type,
            gateway_reference: null,
            failure_code: null,
            failure_message: null,
            decline_code: null,
            additional_data: null,
            paid_at: null,
            amount_refunded: formatAmount('0', currency(d.currency)!),
            refunded: false,
          } satisfies ChargeFields,
        ) as ChargeDoc;
      }
      case 'charge.paid':
        return doc && { ...doc, status: 'succeeded', gateway_reference: e.data.gateway_reference, paid_at: e.data.paid_at, additional_data: null };
      case 'charge.pending':
        return doc && { ...doc, status: 'pending', gateway_reference: e.data.gateway_reference, additional_data: e.data.additional_data };
      case 'charge.failed':
        return (
          doc && {
            ...doc,
            status: 'failed',
            gateway_reference: e.data.gateway_reference,
            failure_code: e.data.failure_code,
            failure_message: e.data.failure_message,
            decline_code: e.data.decline_code,
            additional_data: null,
          }
        );
      case 'collection.refunded':
        return doc && { ...doc, amount_refunded: e.data.amount_refunded, refunded: e.data.status === 'refunded' };
      default:
        return doc;
    }
  },
};
