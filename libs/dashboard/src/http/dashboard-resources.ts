import type { IQuery } from '@nestjs/cqrs';
import type { Owner } from '#shared/owner.js';
import type { SearchMatch } from '#platform/read-models.js';
import { SearchCustomersQuery } from '#customers/application/search-customers.js';
import { SearchSubscriptionsQuery } from '#subscriptions/application/search-subscriptions.js';
import { SearchCollectionsQuery } from '#collections/application/search-collections.js';
import { ListProductsQuery } from '#catalog/application/list-products.js';
import { GetProductQuery } from '#catalog/application/get-product.js';
import { ListPricesQuery } from '#catalog/application/list-prices.js';
import { GetPriceQuery } from '#catalog/application/get-price.js';
import { ListCustomersQuery } from '#customers/application/list-customers.js';
import { GetCustomerQuery } from '#customers/application/get-customer.js';
import { ListCustomerPaymentMethodsQuery } from '#customers/application/list-customer-payment-methods.js';
import { ListSubscriptionsQuery } from '#subscriptions/application/list-subscriptions.js';
import { GetSubscriptionQuery } from '#subscriptions/application/get-subscription.js';
import { ListCollectionsQuery } from '#collections/application/list-collections.js';
import { GetCollectionQuery } from '#collections/application/get-collection.js';
import { ListChargesQuery } from '#collections/application/list-charges.js';
import { GetChargeQuery } from '#collections/application/get-charge.js';
import { GetPaymentMethodQuery } from '#payments/application/get-payment-method.js';
import { ListTestClocksQuery } from '#test-clocks/application/list-test-clocks.js';
import { GetTestClockQuery } from '#test-clocks/application/get-test-clock.js';
import { ListEventsQuery } from '#events/application/list-events.js';
import { GetEventQuery } from '#events/application/get-event.js';
import { ListProductsParams } from '#catalog/http/dto/product.dto.js';
import { ListPricesParams } from '#catalog/http/dto/price.dto.js';
import { ListCustomersParams, ListPaymentMethodsParams } from '#customers/http/dto/customer.dto.js';
import { ListSubscriptionsParams } from '#subscriptions/http/dto/subscription.dto.js';
import { ListChargesParams, ListCollectionsParams } from '#collections/http/dto/collection.dto.js';
import { ListTestClocksParams } from '#test-clocks/http/dto/test-clock.dto.js';
import { ListEventsParams } from '#events/http/events.controller.js';

type Params = Record<string, any>;

/**
 * A column of a list: a field path of the row (a document's field, or one dashboard-list-rows.ts
 * computes for the page), headed `dash.field.<field>`, shown as money (in the row's `currency`, or
 * its field named by `currency`), a date, a status in words, or as is. `link`: the cell links to the
 * row's detail page and shows the row's id under it (ids stay reachable, not in front). `also`: fields
 * shown under the value in the same cell (an export gives each its own column).
 */
export interface Column {
  field: string;
  kind?: 'money' | 'date' | 'status' | 'id';
  link?: boolean;
  also?: string[];
  currency?: string;
}

/**
 * One resource of the dashboard: the list and get queries the GET endpoints run (QueryBus), the
 * class-validator params DTO of the list endpoint (filters are validated with the API's rules), the
 * filters offered and the columns shown. `list` null: listed only under a required filter.
 */
/** Shown under its message key `dash.resource.<name>` (dashboard-messages.ts). */
export interface DashboardResource {
  params: new () => object;
  filters: { name: string; options?: string[] }[];
  columns: Column[];
  list: (owner: Owner, params: Params, match?: SearchMatch) => IQuery;
  /** The search box `q` (issue 31 §1): the query whose SearchMatch narrows the list (and its export). */
  search?: (owner: Owner, q: string) => IQuery;
  get: (owner: Owner, id: string) => IQuery;
  /** The creation form's name, when the dashboard can create one. */
  create?: string;
  testOnly?: boolean;
  /** A filter that must be given before the list shows (payment methods: per customer). */
  requires?: string;
}

const SUB_STATUSES = ['incomplete', 'trialing', 'scheduled', 'active', 'past_due', 'unpaid', 'paused', 'pending_cancel', 'canceled', 'ended', 'expired'];
const COL_STATUSES = ['pending', 'processing', 'paid', 'past_due', 'uncollectible', 'voided', 'refunded'];

export const RESOURCES: Record<string, DashboardResource> = {
  products: {
    params: ListProductsParams,
    filters: [{ name: 'status', options: ['active', 'archived'] }],
    columns: [{ field: 'id', kind: 'id' }, { field: 'name' }, { field: 'status', kind: 'status' }, { field: 'created_date', kind: 'date' }],
    list: (o, p) => new ListProductsQuery(o, p),
    get: (o, id) => new GetProductQuery(o, id),
    create: 'product',
  },
  prices: {
    params: ListPricesParams,
    filters: [{ name: 'product_id' }, { name: 'type', options: ['recurring', 'one_time'] }, { name: 'currency' }],
    columns: [{ field: 'id', kind: 'id' }, { field: 'product_id' }, { field: 'unit_price', kind: 'money' }, { field: 'type' }, { field: 'billing_period' }, { field: 'billing_interval' }, { field: 'active' }],
    list: (o, p) => new ListPricesQuery(o, p as never),
    get: (o, id) => new GetPriceQuery(o, id),
    create: 'price',
  },
  customers: {
    params: ListCustomersParams,
    filters: [{ name: 'email' }],
    columns: [
      { field: 'name', link: true },
      { field: 'email' },
      { field: 'document' },
      { field: 'city' },
      { field: 'active_subscriptions' },
      { field: 'total_paid', kind: 'money', currency: 'total_paid_currency', also: ['total_paid_more'] },
      { field: 'created_date', kind: 'date' },
    ],
    list: (o, p, m) => new ListCustomersQuery(o, p, m),
    search: (o, q) => new SearchCustomersQuery(o, q),
    get: (o, id) => new GetCustomerQuery(o, id),
    create: 'customer',
  },
  subscriptions: {
    params: ListSubscriptionsParams,
    filters: [{ name: 'customer' }, { name: 'status', options: SUB_STATUSES }],
    columns: [{ field: 'customer_name', link: true, also: ['customer_email'] }, { field: 'plan' }, { field: 'amount_per_period', kind: 'money', currency: 'amount_per_period_currency' }, { field: 'status', kind: 'status' }, { field: 'next_renewal', kind: 'date' }],
    list: (o, p, m) => new ListSubscriptionsQuery(o, p, m),
    search: (o, q) => new SearchSubscriptionsQuery(o, q),
    get: (o, id) => new GetSubscriptionQuery(o, id),
    create: 'subscription',
  },
  collections: {
    params: ListCollectionsParams,
    filters: [{ name: 'customer' }, { name: 'subscription' }, { name: 'status', options: COL_STATUSES }],
    columns: [{ field: 'customer_name', link: true, also: ['customer_email'] }, { field: 'concept' }, { field: 'total', kind: 'money' }, { field: 'due_date', kind: 'date' }, { field: 'status', kind: 'status' }, { field: 'collection_method' }],
    list: (o, p, m) => new ListCollectionsQuery(o, p, m),
    search: (o, q) => new SearchCollectionsQuery(o, q),
    get: (o, id) => new GetCollectionQuery(o, id),
    create: 'collection',
  },
  charges: {
    params: ListChargesParams,
    filters: [{ name: 'collection' }, { name: 'customer' }, { name: 'status', options: ['pending', 'paid', 'failed', 'refunded'] }],
    columns: [{ field: 'customer_name', link: true, also: ['customer_email'] }, { field: 'amount', kind: 'money' }, { field: 'method' }, { field: 'status', kind: 'status' }, { field: 'created_date', kind: 'date' }],
    list: (o, p) => new ListChargesQuery(o, p),
    get: (o, id) => new GetChargeQuery(o, id),
  },
  payment_methods: {
    params: ListPaymentMethodsParams,
    filters: [{ name: 'customer' }],
    requires: 'customer',
    columns: [{ field: 'id', kind: 'id' }, { field: 'type' }, { field: 'card.brand' }, { field: 'card.last4' }, { field: 'status', kind: 'status' }, { field: 'gateway' }],
    list: (o, p) => new ListCustomerPaymentMethodsQuery(o, String(p.customer), { limit: p.limit, starting_after: p.starting_after }),
    get: (o, id) => new GetPaymentMethodQuery(o, id),
  },
  test_clocks: {
    params: ListTestClocksParams,
    filters: [],
    columns: [{ field: 'id', kind: 'id' }, { field: 'name' }, { field: 'frozen_time' }, { field: 'status', kind: 'status' }],
    list: (o, p) => new ListTestClocksQuery(o, p),
    get: (o, id) => new GetTestClockQuery(o, id),
    create: 'test_clock',
    testOnly: true,
  },
  events: {
    params: ListEventsParams,
    filters: [{ name: 'type' }, { name: 'object_id' }],
    columns: [{ field: 'id', kind: 'id' }, { field: 'type' }, { field: 'data.object.id' }, { field: 'created' }],
    list: (o, p) => new ListEventsQuery(o, p, '/v1/events'),
    get: (o, id) => new GetEventQuery(o, id),
  },
};

/** Longest search the box takes (longer is cut): five words of an e-mail, a name or a document. */
export const MAX_SEARCH = 200;

/** The list's search, when it has one and `q` is not blank: what narrows the list and its export. */
export async function searchMatch(queries: { execute<Q extends IQuery, R>(query: Q): Promise<R> }, resource: DashboardResource, owner: Owner, q: string | undefined): Promise<SearchMatch | undefined> {
  const typed = (q ?? '').trim().slice(0, MAX_SEARCH);
  if (!resource.search || typed === '') return undefined;
  return queries.execute<IQuery, SearchMatch>(resource.search(owner, typed));
}

/** `a.b.c` of a document. */
export function pick(doc: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), doc);
}
