import type { Owner } from '#shared/owner.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { formatMoney } from '#web/format.js';
import { listRows, Lookup, methodWords, periodWords, type RowWords } from './dashboard-list-rows.js';
import { valueLabel } from './dashboard-values.js';

type Doc = Record<string, any>;

/** What a detail page shows in front of the ids: its heading in business terms, and the objects its fields link to by name. */
export interface DetailWords {
  /** "Ana Pérez · Plan Pro · $ 49.900 al mes"; null: the page is headed by its resource and id. */
  headline: string | null;
  /** Each linked id among the document's fields → its object in words ("Ana Pérez", "Visa •••• 4242", "$ 49.900 · Pagado"). */
  refs: Record<string, string>;
}

/** The collection an id's prefix names, for the ids a detail page links to. */
const COLLECTION_OF_PREFIX: Record<string, string> = { cus: 'customers', pm: 'payment_methods', price: 'prices', prod: 'products', col: 'collections', sub: 'subscriptions', ch: 'charges' };

const money = (words: RowWords, amount: unknown, currency: unknown) => (typeof amount === 'string' && typeof currency === 'string' ? formatMoney(amount, currency, words.locale) : null);
const joined = (...parts: Array<string | null | undefined | false>) => parts.filter((p): p is string => typeof p === 'string' && p !== '').join(' · ') || null;

/**
 * A detail page's words (dash-detail.eta): the same enrichment as the list's rows (dashboard-list-rows.ts)
 * for its heading, and one `getMany` per collection for the objects its fields name. Ids stay on the
 * page (beside the heading and each link, and in the raw object), not in front.
 */
export async function detailWords(store: ReadStore, owner: Owner, resource: string, doc: Doc, words: RowWords): Promise<DetailWords> {
  const lookup = new Lookup(store, owner);
  const [row] = await listRows(store, owner, resource, [doc], words);
  const refs = await referenced(lookup, doc, words);
  return { headline: await headline(lookup, resource, row, refs, words), refs };
}

async function headline(lookup: Lookup, resource: string, row: Doc, refs: Record<string, string>, words: RowWords): Promise<string | null> {
  const customer = row.customer_name ?? row.customer_email ?? (typeof row.customer === 'string' ? refs[row.customer] : null);
  switch (resource) {
    case 'subscriptions':
      return joined(customer, row.plan);
    case 'customers':
      return joined(row.name ?? row.email);
    case 'collections':
      return joined(customer, row.concept, money(words, row.total ?? row.amount, row.currency));
    case 'charges':
      return joined(customer, money(words, row.amount, row.currency), row.method);
    case 'products':
    case 'test_clocks':
      return joined(row.name);
    case 'prices': {
      const product = typeof row.product_id === 'string' ? (await lookup.many('products', [row.product_id])).get(row.product_id) : undefined;
      return joined(product?.name ?? row.nickname, priceWords(row, words));
    }
    case 'payment_methods':
      return joined(methodWords(words, row, row.type), customer);
    default:
      return null;
  }
}

/** "$ 49.900 al mes" (a one-time price: its amount alone). */
function priceWords(price: Doc, words: RowWords): string | null {
  return joined([money(words, price.unit_price, price.currency), price.type === 'recurring' ? periodWords(words.t, price.billing_period, price.billing_interval) : ''].filter(Boolean).join(' '));
}

async function referenced(lookup: Lookup, doc: Doc, words: RowWords): Promise<Record<string, string>> {
  const ids = new Map<string, string[]>();
  for (const [field, value] of Object.entries(doc)) {
    if (field === 'id' || typeof value !== 'string') continue;
    const collection = COLLECTION_OF_PREFIX[/^([a-z]+)_[A-Za-z0-9]+$/.exec(value)?.[1] ?? ''];
    if (collection) ids.set(collection, [...(ids.get(collection) ?? []), value]);
  }
  const found = await Promise.all([...ids].map(async ([collection, wanted]) => [collection, await lookup.many(collection, wanted)] as const));
  const refs: Record<string, string> = {};
  for (const [collection, docs] of found) {
    for (const [id, d] of docs) {
      const status = typeof d.status === 'string' ? valueLabel(words.t, collection, 'status', d.status) : null;
      const text = ((): string | null => {
        switch (collection) {
          case 'customers':
            return joined(d.name ?? d.email);
          case 'payment_methods':
            return methodWords(words, d, d.type);
          case 'products':
            return joined(d.name);
          case 'prices':
            return joined(d.nickname, priceWords(d, words));
          case 'collections':
          case 'charges':
            return joined(money(words, d.total ?? d.amount, d.currency), status);
          case 'subscriptions':
            return status;
          default:
            return null;
        }
      })();
      if (text) refs[id] = text;
    }
  }
  return refs;
}
