import type { CollectionCreated, CollectionEvent } from '../collection.events.js';
import type { CollectionState } from '../collection.state.js';
import { dueDateAfterDays } from '#shared/dates.js';
import { RETENTION_TYPES, checkRetentionRate } from '#shared/retentions.js';
import type { CommandOf } from '../collection.commands.js';
import { Money, currency as currencyOf } from '#shared/money.js';
import { checkDiscounts, newCollectionFields, normalizeDiscount, paidEvent, priceCollection } from '../collection.rules.js';
import { checkMetaData } from '#shared/meta-data.js';
import { evolveCollection } from '../collection.evolve.js';
import { invalidParam, invalidState, missingParam } from '#shared/errors.js';

/** A collection from priced items: charge (attempted by the caller) or collect (sent, due until the end of the day days_until_due days after today, in the account's zone); a zero total is paid at once. */
export function decideCreateCollection(command: CommandOf<'CreateCollection'>, state: CollectionState): CollectionEvent[] {
  if (state.exists) throw invalidState(`Collection ${command.collectionId} already exists`);
  const input = command.input;
  const cur = currencyOf(input.currency);
  if (!cur) throw invalidParam('currency', `currency must be an ISO 4217 currency code (got ${input.currency})`);
  if (input.lines.length === 0) throw missingParam('items', 'items must have at least one item');
  checkDiscounts(input.discounts, cur);
  checkMetaData(input.meta_data);
  // reteica per thousand (‰), retefte percent: the same rule as the subscription's and the settings'.
  for (const k of RETENTION_TYPES) checkRetentionRate(`invoice_retentions[${k}]`, k, input.invoice_retentions?.[k]);
  if (input.collection_method === 'collect' && (input.days_until_due === null || input.days_until_due === undefined)) {
    throw missingParam('days_until_due', 'days_until_due is required with collection_method collect');
  }
  if (input.invoicing !== undefined && input.invoicing !== null && !['create', 'after', 'none'].includes(input.invoicing)) throw invalidParam('invoicing', 'invoicing must be create, after, none or null');
  if (input.invoicing === 'create' && input.collection_method === 'charge') throw invalidParam('invoicing', 'invoicing create is not allowed with collection_method charge; only after is valid');
  const discounts = input.discounts.map((d) => normalizeDiscount(d, cur));
  const priced = priceCollection(input.lines, discounts, cur);
  const now = command.now.toISOString();
  // collect: a calendar day of the account's zone, days_until_due days after today there, due until its end.
  const due_date =
    input.collection_method === 'collect'
      ? dueDateAfterDays(command.now, input.days_until_due!)
      : input.due_immediately
        ? command.now.toISOString()
        : null;
  const fields = newCollectionFields(input, cur, priced, due_date, input.invoicing ? { invoicing: input.invoicing } : {});
  const created: CollectionCreated = {
    type: 'collection.created',
    data: { id: command.collectionId, account_id: command.owner.accountId, is_test: command.owner.mode === 'test', created_at: now, ...fields },
  };
  const events: CollectionEvent[] = [created];
  const r = { id: command.collectionId, subscription: input.subscription, customer: input.customer.id };
  if (new Money(fields.total).isZero()) {
    // Nothing to collect (a trial's first collection without one-time items): paid at once.
    const after = evolveCollection(state, created);
    events.push(paidEvent(after, command.collectionId, now, {}));
  } else if (input.collection_method === 'collect') {
    events.push({ type: 'collection.sent', data: { ...r, sent_at: now, checkout_url: input.checkout_url } });
  }
  return events;
}
