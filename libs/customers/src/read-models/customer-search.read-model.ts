/** The dashboard's search terms of the customers (projections/customers.projection.ts): one document per customer and term, `<customer id>~<term>`. */
export const CUSTOMER_SEARCH = 'customer_search';

/** A customer's search term as stored: found by a prefix range on `term` within the account and mode. */
export interface CustomerSearchDoc {
  id: string;
  customer: string;
  term: string;
  is_test: boolean;
  _account: string;
}
