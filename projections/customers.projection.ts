import {
  type CustomerCreated,
  type CustomerEvent,
  applyCustomerChanges,
  emailKey,
} from '#customers/domain/customer.decider.js';
import type { Projection } from '#projection-runtime/projection.js';
import type { CustomerDoc } from '#customers/read-models/customer.read-model.js';
import { newOwnedDoc, TENANT_INDEXES } from '#platform/owned-doc.js';

/** Customers as GET /v1/customers serves them. The `customeremail-` claim streams are not projected. */
export const customersProjection: Projection<CustomerDoc> = {
  name: 'customers',
  category: 'customer',
  collection: 'customers',
  collections: [{ name: 'customers', indexes: [...TENANT_INDEXES, { fields: ['_account', 'is_test', '_email'] }] }],
  documentIds: (e) => (e.type.startsWith('customer.') && e.streamId.startsWith('customer-') ? [String(e.data.id)] : []),
  project(doc, event) {
    const e = event as unknown as CustomerEvent;
    switch (e.type) {
      case 'customer.created': {
        const { account_id, created_at, id, is_test, ...fields }: CustomerCreated['data'] = e.data;
        // Customers created before test clocks have no `test_clock`: real time.
        const withClock = { ...fields, test_clock: fields.test_clock ?? null };
        return { ...newOwnedDoc('customer', { id, account_id, is_test, created_at }, withClock), _email: emailKey(fields.email) } as CustomerDoc;
      }
      case 'customer.updated': {
        if (!doc) return doc;
        const next = applyCustomerChanges(doc, e.data.changes);
        return { ...next, _email: emailKey(next.email) };
      }
      default:
        return doc;
    }
  },
};
