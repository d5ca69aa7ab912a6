import type { CollectionCreated, CollectionEvent } from '../collection.events.js';
import { type CollectionMoney, newCollectionFields, paidEvent } from '../collection.rules.js';
import { type CollectionState, firstDunningDate } from '../collection.state.js';
import type { CommandOf } from '../collection.commands.js';
import { Money, currency as currencyOf, decimalPlaces, formatAmount, isDecimalString } from '#shared/money.js';
import { checkMetaData } from '#shared/meta-data.js';
import { evolveCollection } from '../collection.evolve.js';
import { invalidParam, invalidState, missingParam } from '#shared/errors.js';

/**
 * A collection without items, its total set directly: the balance of a partial payment (`collect`,
 * due `days_until_due` later, created and sent), an uploaded invoice's (created and sent; past due at
 * once when its due date has passed) or the receipt of a registered payment (created and paid out of
 * band at once).
 */
export function decideCreateItemlessCollection(command: CommandOf<'CreateItemlessCollection'>, state: CollectionState): CollectionEvent[] {
  if (state.exists) throw invalidState(`Collection ${command.collectionId} already exists`);
  const input = command.input;
  const cur = currencyOf(input.currency);
  if (!cur) throw invalidParam('currency', `currency must be an ISO 4217 currency code (got ${input.currency})`);
  checkMetaData(input.meta_data);
  if (!isDecimalString(input.total) || new Money(input.total).lte(0)) throw invalidParam('amount', 'amount must be a positive decimal amount');
  if (decimalPlaces(input.total) > cur.exponent) throw invalidParam('amount', `amount has more decimals than ${cur.code} allows (${cur.exponent})`);
  const total = formatAmount(input.total, cur);
  const now = command.now.toISOString();
  const money: CollectionMoney = { items: null, discounts: [], subtotal: total, total, exchange_rates: [], discount_amounts: {} };
  const r = { id: command.collectionId, subscription: input.subscription, customer: input.customer.id };
  if (input.kind === 'balance' || input.kind === 'invoice') {
    if (!input.due_date || Number.isNaN(Date.parse(input.due_date))) {
      throw input.kind === 'invoice' ? missingParam('due_date', 'due_date is required') : missingParam('days_until_due', 'days_until_due is required with create_collection_with_balance');
    }
    if (input.kind === 'balance' && !input.balance_of) throw missingParam('balance_of', 'A balance collection names the collection it is the balance of');
    const fields = newCollectionFields({ ...input, collection_method: 'collect' }, cur, money, new Date(input.due_date).toISOString(), { balance_of: input.balance_of });
    const created: CollectionEvent = { type: 'collection.created', data: { id: command.collectionId, account_id: command.owner.accountId, is_test: command.owner.mode === 'test', created_at: now, ...fields } };
    const sent: CollectionEvent = { type: 'collection.sent', data: { ...r, sent_at: now, checkout_url: input.checkout_url } };
    if (command.now.getTime() <= Date.parse(fields.due_date!)) return [created, sent];
    // Made already past its due date (an overdue invoice uploaded): past due at once, its dunning
    // counted from now (no reminder dated before it existed), and sent once, as an overdue notice.
    const pastDue: CollectionEvent = {
      type: 'collection.past_due',
      data: { ...r, due_date: fields.due_date!, next_collection_attempt_date: firstDunningDate(fields, now), meta_data: fields.meta_data },
    };
    return [created, pastDue, sent];
  }
  const applied = (input.applied_to ?? []).map((a) => ({ collection: a.collection, amount: formatAmount(a.amount, cur) }));
  const appliedSum = applied.reduce((sum, a) => sum.plus(a.amount), new Money(0));
  if (appliedSum.gt(total)) throw invalidParam('amount', `The amounts applied (${formatAmount(appliedSum, cur)}) exceed the payment (${total})`);
  // What it did: `amount_applied` is the sum it applied to other collections, `invoices` the fiscal invoices it paid into.
  const fields = newCollectionFields({ ...input, collection_method: 'collect' }, cur, money, null, {
    applied_to: applied,
    amount_applied: formatAmount(appliedSum, cur),
    invoices: [...new Set(input.invoices ?? [])],
  });
  const created: CollectionCreated = {
    type: 'collection.created',
    data: { id: command.collectionId, account_id: command.owner.accountId, is_test: command.owner.mode === 'test', created_at: now, ...fields },
  };
  return [created, paidEvent(evolveCollection(state, created), command.collectionId, now, { paid_out_of_band: true })];
}
