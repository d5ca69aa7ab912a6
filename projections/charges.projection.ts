import type { CollectionEvent } from '#collections/domain/collection.decider.js';
import type { OwnedDoc } from '#platform/read-models.js';
import { currency, formatAmount } from '#shared/money.js';
import type { Projection } from './runtime/projection.js';
import { newOwnedDoc, TENANT_INDEXES } from './owned-doc.js';

/** A gateway-level try to take the money of a transaction. */
export interface ChargeFields {
  collection: string;
  transaction: string;
  customer: string;
  subscription: string | null;
  /** `in_progress` (sent to the gateway), `pending` (awaits the customer), `succeeded`, `failed`. */
  status: 'in_progress' | 'pending' | 'succeeded' | 'failed';
  try: number;
  amount: string;
  currency: string;
  payment_method: string | null;
  gateway: string;
  payment_method_type: string;
  gateway_reference: string | null;
  failure_code: string | null;
  failure_message: string | null;
  decline_code: string | null;
  additional_data: Record<string, unknown> | null;
  paid_at: string | null;
  amount_refunded: string;
  refunded: boolean;
}

export type ChargeDoc = OwnedDoc & ChargeFields & { object: 'charge'; created_date: string };

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
