import {
  type CustomerCreated,
  type CustomerEvent,
  type CustomerFields,
  applyCustomerChanges,
  emailKey,
} from '#customers/domain/customer.decider.js';
import type { OwnedDoc } from '#platform/read-models.js';
import type { Projection } from './runtime/projection.js';
import { newOwnedDoc, TENANT_INDEXES } from './owned-doc.js';

/** `_email`: the email trimmed and lower-cased, for the exact case-insensitive `email` filter. */
export type CustomerDoc = OwnedDoc & CustomerFields & { object: 'customer'; created_date: string; _email?: string };

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
