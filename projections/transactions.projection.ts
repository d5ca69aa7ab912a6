import type { CollectionEvent } from '#collections/domain/collection.decider.js';
import type { Projection } from '#projection-runtime/projection.js';
import type { TransactionDoc, TransactionFields } from '#collections/read-models/transaction.read-model.js';
import { newOwnedDoc, TENANT_INDEXES } from '#platform/owned-doc.js';

const TX_EVENTS = new Set(['transaction.created', 'charge.created', 'charge.paid', 'charge.pending', 'collection.payment_failed', 'collection.paid']);

/** Transactions, built from the collection stream's attempt events. */
export const transactionsProjection: Projection<TransactionDoc> = {
  name: 'transactions',
  object: 'transaction',
  collection: 'transactions',
  collections: [{ name: 'transactions', indexes: [...TENANT_INDEXES, { fields: ['_account', 'is_test', 'collection', '_created'] }] }],
  documentIds: (e) =>
    e.streamId.startsWith('collection-') && TX_EVENTS.has(e.type) && typeof e.data.transaction === 'string' ? [e.data.transaction] : [],
  project(doc, event) {
    const e = event as unknown as CollectionEvent;
    switch (e.type) {
      case 'transaction.created': {
        const d = e.data;
        return newOwnedDoc(
          'transaction',
          { id: d.transaction, account_id: String(event.metadata.account_id), is_test: event.metadata.mode === 'test', created_at: d.created_at },
          {
            collection: d.collection,
            customer: d.customer,
            subscription: d.subscription,
            status: 'in_progress',
            amount: d.amount,
            currency: d.currency,
            payment_method: d.payment_method,
            gateway: d.gateway,
            payment_method_type: d.payment_method_type,
            initiated_by: d.initiated_by,
            charges: [],
            failure_code: null,
            failure_message: null,
          } satisfies TransactionFields,
        ) as TransactionDoc;
      }
      case 'charge.created':
        return doc && { ...doc, status: 'in_progress', charges: [...doc.charges, e.data.charge] };
      case 'charge.pending':
        return doc && { ...doc, status: 'pending' };
      case 'charge.paid':
      case 'collection.paid':
        return doc && { ...doc, status: 'succeeded' };
      case 'collection.payment_failed':
        return doc && { ...doc, status: 'failed', failure_code: e.data.failure_code, failure_message: e.data.failure_message };
      default:
        return doc;
    }
  },
};
