import {
  type CustomerCreated,
  type CustomerEvent,
  applyCustomerChanges,
  emailKey,
} from '#customers/domain/customer.decider.js';
import type { Projection } from '#projection-runtime/projection.js';
import { erasedCustomerFields } from '#customers/personal-data/placeholders.js';
import type { CustomerDoc } from '#customers/read-models/customer.read-model.js';
import { newOwnedDoc, TENANT_INDEXES } from '#platform/owned-doc.js';
import type { DocumentWrite } from '#read-store/read-store.port.js';
import { customerSearchTerms } from '#customers/domain/customer-search.js';
import { CUSTOMER_SEARCH, type CustomerSearchDoc } from '#customers/read-models/customer-search.read-model.js';

/** The search terms' writes for a customer's change: its terms now, and deletes for those it no longer has. */
export function customerSearchWrites(after: CustomerDoc | null, before: CustomerDoc | null): DocumentWrite[] {
  const doc = after ?? before;
  if (!doc) return [];
  const now = after && !after._deleted ? customerSearchTerms(after) : [];
  const was = before ? customerSearchTerms(before) : [];
  const id = (term: string) => `${doc.id}~${term}`;
  return [
    ...was.filter((t) => !now.includes(t)).map((t) => ({ collection: CUSTOMER_SEARCH, id: id(t), doc: null })),
    ...now.map((term) => ({ collection: CUSTOMER_SEARCH, id: id(term), doc: { id: id(term), customer: doc.id, term, is_test: doc.is_test, _account: doc._account } satisfies CustomerSearchDoc })),
  ];
}

/** Customers as GET /v1/customers serves them. The `customeremail-` claim streams are not projected. */
export const customersProjection: Projection<CustomerDoc> = {
  name: 'customers',
  category: 'customer',
  collection: 'customers',
  collections: [
    { name: 'customers', indexes: [...TENANT_INDEXES, { fields: ['_account', 'is_test', '_email'] }] },
    { name: CUSTOMER_SEARCH, indexes: [{ fields: ['_account', 'is_test', 'term'] }] },
  ],
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
      case 'customer.erased': {
        // The personal fields become their placeholders (what its events now read as: a rebuild gives the same document).
        if (!doc) return doc;
        const next = { ...doc, ...erasedCustomerFields(doc), erased_at: e.data.erased_at };
        return { ...next, _email: emailKey(next.email) };
      }
      default:
        return doc;
    }
  },
  derive: (_event, after, before) => customerSearchWrites(after, before),
};
