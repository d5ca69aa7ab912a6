import { AggregateExecutor } from '#platform/aggregate-executor.js';
import { Money, currency as currencyOf, formatAmount } from '#shared/money.js';
import { type CollectionFields, type InvoiceFigures, collectionDecider, collectionStream } from '../domain/collection.decider.js';

/** How many links of a `balance_of` chain are followed at most (a guard; chains are short). */
const MAX_CHAIN = 100;

export type ChainMember = { id: string; fields: CollectionFields };
type Member = ChainMember;

/** A collection read from its stream (null when it does not exist). */
export async function loadChainMember(executor: AggregateExecutor, id: string): Promise<ChainMember | null> {
  const { state } = await executor.load(collectionDecider, collectionStream(id));
  return state.exists ? { id, fields: state.fields! } : null;
}

/**
 * The chain a partial payment links, from `root` down: each collection's balance collection in turn
 * (`partial_payment.balance_collection`), read from the streams. `known`: a member already in hand
 * (e.g. with fields not yet written), used instead of reading its stream.
 */
export async function chainFrom(executor: AggregateExecutor, root: ChainMember, known?: ChainMember): Promise<ChainMember[]> {
  const members: ChainMember[] = [root];
  for (let i = 0; i < MAX_CHAIN; i++) {
    const next = members[members.length - 1].fields.partial_payment?.balance_collection;
    if (!next || members.some((m) => m.id === next)) break;
    const member = next === known?.id ? known : await loadChainMember(executor, next);
    if (!member) break;
    members.push(member);
  }
  return members;
}

/**
 * The invoice of a collection while this service issues no invoices: the chain of collections a
 * partial payment links — the first collection (no `balance_of`), its balance collection
 * (`partial_payment.balance_collection`), that one's balance collection, and so on. Read from the
 * collections' streams (not read models), so it is exact right after a write.
 *
 * - invoice.total: the first collection's `partial_payment.original_total` (its total plus any
 *   registered payment applied to it, when it has no partial payment);
 * - invoice.total_paid: Σ over the chain of the amounts applied by registered payments plus the
 *   totals of the paid (or refunded) collections less what was refunded;
 * - other_totals: Σ over the chain's other collections of total + amount applied (a voided one counts
 *   only its amount applied), plus the amount applied to this collection;
 * - fiscal_invoice: the first collection's fiscal invoice, if invoicing made one (its figures then
 *   replace total and total_paid: see update-collection-total.ts).
 */
export async function invoiceOf(executor: AggregateExecutor, collectionId: string, fields: CollectionFields): Promise<InvoiceFigures & { fiscal_invoice: string | null }> {
  const self: Member = { id: collectionId, fields };
  let root: Member = self;
  for (let i = 0; i < MAX_CHAIN && root.fields.balance_of; i++) {
    const up = await loadChainMember(executor, root.fields.balance_of);
    if (!up) break;
    root = up;
  }
  const members = await chainFrom(executor, root, self);
  const cur = currencyOf(fields.currency)!;
  const applied = (f: CollectionFields) => new Money(f.amount_applied ?? '0');
  const total = root.fields.partial_payment ? new Money(root.fields.partial_payment.original_total) : new Money(root.fields.total).plus(applied(root.fields));
  let paid = new Money(0);
  let others = new Money(0);
  for (const m of members) {
    const f = m.id === collectionId ? fields : m.fields;
    paid = paid.plus(applied(f));
    if (f.status === 'paid' || f.status === 'refunded') paid = paid.plus(f.total).minus(f.amount_refunded ?? '0');
    others = others.plus(applied(f));
    if (m.id !== collectionId && f.status !== 'voided') others = others.plus(f.total);
  }
  const fiscal_invoice = root.id === collectionId ? fields.invoice : root.fields.invoice;
  return { id: root.id, total: formatAmount(total, cur), total_paid: formatAmount(paid, cur), other_totals: formatAmount(others, cur), fiscal_invoice };
}
