import type { CustomerFields } from '../domain/customer.decider.js';
import { ERASED_TEXT } from './pii-cipher.js';

/**
 * A customer's personal fields once erased (docs/personal-data.md): each one that held a value shows
 * its placeholder — exactly what its events read as once the key is gone — and one that was empty
 * stays empty, so a document scrubbed on `customer.erased` equals the one a rebuild makes.
 */
export function erasedCustomerFields(fields: Pick<CustomerFields, 'email' | 'name' | 'phone' | 'document_number' | 'billing_address' | 'meta_data'>) {
  const text = (v: string | null) => (v === null || v === undefined ? v : ERASED_TEXT);
  return {
    email: ERASED_TEXT,
    name: text(fields.name),
    phone: text(fields.phone),
    document_number: text(fields.document_number),
    billing_address: null,
    meta_data: {},
  };
}
