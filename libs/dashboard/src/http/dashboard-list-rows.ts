import type { Owner } from '#shared/owner.js';
import { Money } from '#shared/money.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { linePrice, type PriceSnapshot } from '#collections/domain/pricing.js';
import { cardBrand, formatMoney } from '#web/format.js';
import type { Locale, Translate } from '#web/i18n.js';

type Doc = Record<string, any>;

/** The page's words for the row's computed fields. */
export interface RowWords {
  t: Translate;
  locale: Locale;
}

/**
 * A list page's rows in business terms: each row keeps its document's fields and gains the computed
 * fields the list's columns name (dashboard-resources.ts): `customer_name`, `customer_email`, `plan`, `active_subscriptions`, `total_paid`,
 * `amount_per_period`, `next_renewal`, `document`, `city`, `concept`, `method`. What they need of
 * other documents (the page's customers, products, payment methods) is read with one `getMany` per
 * collection for the whole page (a page is at most 100 rows), never a read per row. The same rows
 * can feed an export: the fields are plain values (decimal strings for amounts, ISO dates, words).
 */
export async function listRows(store: ReadStore, owner: Owner, resource: string, rows: Doc[], words: RowWords): Promise<Doc[]> {
  const enrich = (ENRICH as Partial<Record<string, Enrich>>)[resource];
  return enrich && rows.length ? enrich(new Lookup(store, owner), rows, words) : rows;
}

/** Documents of the visitor's account and mode, read once per collection for a page. */
export class Lookup {
  constructor(
    private readonly store: ReadStore,
    private readonly owner: Owner,
  ) {}

  async many(collection: string, ids: unknown[]): Promise<Map<string, Doc>> {
    const wanted = [...new Set(ids.filter((id): id is string => typeof id === 'string' && id !== ''))];
    if (wanted.length === 0) return new Map();
    const found = await this.store.getMany<Doc>(collection, wanted);
    const mine = new Map<string, Doc>();
    for (const [id, doc] of found) if (doc._account === this.owner.accountId && doc.is_test === (this.owner.mode === 'test') && !doc._deleted) mine.set(id, doc);
    return mine;
  }
}

type Enrich = (lookup: Lookup, rows: Doc[], words: RowWords) => Promise<Doc[]>;

const customerFields = (customer: Doc | undefined) => ({ customer_name: customer?.name ?? null, customer_email: customer?.email ?? null });

/** "al mes", "cada 3 meses" / "a month", "every 3 months". */
export function periodWords(t: Translate, period: string | null | undefined, interval: number | null | undefined): string {
  if (!period) return '';
  const n = interval ?? 1;
  return n === 1 ? t(`dash.list.period.${period}`) : t(`dash.list.period.${period}s`, { n });
}

/** What the subscription's items cost a period, before discounts; null when its prices are in different currencies. */
function amountPerPeriod(items: Doc[]): { amount: string; currency: string } | null {
  let total = new Money(0);
  let currency: string | null = null;
  for (const item of items) {
    const price = item.price as PriceSnapshot;
    if (currency !== null && price.currency !== currency) return null;
    currency = price.currency;
    total = total.plus(linePrice(price, item.quantity ?? 1, item.amount));
  }
  return currency ? { amount: total.toFixed(), currency } : null;
}

/** "Plan Pro · $ 49.900 al mes" (+N more items). */
function planWords(words: RowWords, items: Doc[], products: Map<string, Doc>, period: string, interval: number): string | null {
  const [first] = items;
  if (!first) return null;
  const price = first.price as PriceSnapshot;
  const name = products.get(first.product?.id)?.name ?? first.product?.name ?? price.product_id;
  const each = price.pricing_model === 'ntp' ? (first.amount ?? null) : price.unit_price;
  const parts = [name, [each != null ? formatMoney(each, price.currency, words.locale) : '', periodWords(words.t, price.billing_period ?? period, price.billing_interval ?? interval)].filter(Boolean).join(' ')];
  const plan = parts.filter(Boolean).join(' · ');
  return items.length > 1 ? `${plan} ${words.t('dash.list.more_items', { n: items.length - 1 })}` : plan;
}

/** "Visa •••• 4242", else the method's type in words. */
export function methodWords(words: RowWords, method: Doc | undefined, type: string | null | undefined): string | null {
  const last4 = method?.card?.last4 ?? method?.wallet?.account_last4;
  const typeWords = (kind: string | null | undefined) => {
    if (!kind) return '';
    const key = `dash.value.type.${kind}`;
    const w = words.t(key);
    return w === key ? kind : w;
  };
  if (method?.card) return [cardBrand(method.card.brand) || typeWords(method.type), last4 ? `•••• ${last4}` : ''].filter(Boolean).join(' ');
  if (method) return [typeWords(method.type), last4 ? `•••• ${last4}` : ''].filter(Boolean).join(' ');
  return typeWords(type) || null;
}

const ENRICH: Record<string, Enrich> = {
  async subscriptions(lookup, rows, words) {
    const [customers, products] = await Promise.all([
      lookup.many('customers', rows.map((r) => r.customer)),
      lookup.many('products', rows.flatMap((r) => (r.items ?? []).map((i: Doc) => i.product?.id))),
    ]);
    return rows.map((r) => {
      const items: Doc[] = r.items ?? [];
      const perPeriod = amountPerPeriod(items);
      return {
        ...r,
        ...customerFields(customers.get(r.customer)),
        plan: planWords(words, items, products, r.billing_period, r.billing_interval),
        amount_per_period: perPeriod?.amount ?? null,
        amount_per_period_currency: perPeriod?.currency ?? r.currency,
        next_renewal: r.current_period_end ?? r.next_renewal_date ?? null,
      };
    });
  },

  async customers(lookup, rows, words) {
    // Kept by events (projections/customer-activity.projection.ts): one getMany for the page.
    const activity = await lookup.many('customer_totals', rows.map((r) => r.id));
    return rows.map((r) => {
      const a = activity.get(r.id);
      // The first currency in the column (a money column, a number in the export), any others beside it.
      const [first, ...more] = Object.entries((a?.total_paid ?? {}) as Record<string, string>);
      return {
        ...r,
        document: [r.document_type, r.document_number].filter(Boolean).join(' ') || null,
        city: r.billing_address?.city ?? null,
        active_subscriptions: a?.active_subscriptions ?? 0,
        total_paid: first ? first[1] : null,
        total_paid_currency: first ? first[0] : null,
        total_paid_more: more.length ? more.map(([currency, amount]) => formatMoney(amount, currency, words.locale)).join(' · ') : null,
      };
    });
  },

  async collections(lookup, rows, words) {
    const customers = await lookup.many('customers', rows.map((r) => r.customer));
    return rows.map((r) => {
      const items: Doc[] = r.items ?? [];
      const first = items[0] ? (items[0].name ?? items[0].product?.name ?? null) : null;
      const concept = r.description ?? (first && items.length > 1 ? `${first} ${words.t('dash.list.more_items', { n: items.length - 1 })}` : first);
      return { ...r, ...customerFields(customers.get(r.customer)), concept };
    });
  },

  async charges(lookup, rows, words) {
    // A charge paid with one-off card details has no payment method of its own; the method saved from
    // it is the one its collection records as having paid it (collection.paid's saved_payment_method).
    const unsaved = rows.filter((r) => !r.payment_method && r.status === 'succeeded');
    const [customers, collections] = await Promise.all([lookup.many('customers', rows.map((r) => r.customer)), lookup.many('collections', unsaved.map((r) => r.collection))]);
    const methodOf = (r: Doc): string | null => r.payment_method ?? (r.status === 'succeeded' ? (collections.get(r.collection)?.payment_method ?? null) : null);
    const methods = await lookup.many('payment_methods', rows.map(methodOf));
    return rows.map((r) => {
      const pm = methodOf(r);
      return { ...r, ...customerFields(customers.get(r.customer)), method: methodWords(words, pm ? methods.get(pm) : undefined, r.payment_method_type) };
    });
  },
};
