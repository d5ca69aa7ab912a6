import {
  type PaymentMethodEvent,
  applyPaymentMethodChanges,
} from '#payments/domain/payment-method.decider.js';
import type { Projection } from '#projection-runtime/projection.js';
import type { PaymentMethodDoc } from '#payments/read-models/payment-method.read-model.js';
import { newOwnedDoc, TENANT_INDEXES } from '#platform/owned-doc.js';

/** Stored payment methods (never their tokens). A deleted method is detached and no longer listed. */
export const paymentMethodsProjection: Projection<PaymentMethodDoc> = {
  name: 'payment_methods',
  category: 'paymentmethod',
  object: 'payment_method',
  collection: 'payment_methods',
  collections: [{ name: 'payment_methods', indexes: [...TENANT_INDEXES, { fields: ['_account', 'is_test', 'customer', '_deleted', '_created'] }] }],
  documentIds: (e) => (e.streamId.startsWith('paymentmethod-') && e.type.startsWith('payment_method.') ? [String(e.data.id)] : []),
  project(doc, event) {
    const e = event as unknown as PaymentMethodEvent;
    switch (e.type) {
      case 'payment_method.created': {
        const { id, account_id, is_test, created_at, token: _token, ...fields } = e.data;
        return newOwnedDoc('payment_method', { id, account_id, is_test, created_at }, fields) as PaymentMethodDoc;
      }
      case 'payment_method.updated':
        return doc && applyPaymentMethodChanges(doc, e.data.changes);
      case 'payment_method.deleted':
        return doc && { ...doc, status: 'detached', _deleted: true };
      default:
        return doc;
    }
  },
};
