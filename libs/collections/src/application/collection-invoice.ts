import { AggregateExecutor } from '../../../platform/src/aggregate-executor.js';
import { Money, currency as currencyOf, formatAmount } from '../../../shared/src/money.js';
import { type CollectionFields, type InvoiceFigures, collectionDecider, collectionStream } from '../domain/collection.decider.js';

/** How many links of a `balance_of` chain are followed at most (a guard; chains are short). */
const MAX_CHAIN = 100;

type Member = { id: string; fields: CollectionFields };

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
  const load = async (id: string): Promise<Member | null> => {
    const { state } = await executor.load(collectionDecider, collectionStream(id));
    return state.exists ? { id, fields: state.fields! } : null;
  };
  let root: Member = { id: collectionId, fields };
  for (let i = 0; i < MAX_CHAIN && root.fields.balance_of; i++) {
    const up = await load(root.fields.balance_of);
    if (!up) break;
    root = up;
  }
  const members: Member[] = [root];
  for (let i = 0; i < MAX_CHAIN; i++) {
    const next = members[members.length - 1].fields.partial_payment?.balance_collection;
    if (!next || members.some((m) => m.id === next)) break;
    const member = next === collectionId ? { id: collectionId, fields } : await load(next);
    if (!member) break;
    members.push(member);
  }
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
