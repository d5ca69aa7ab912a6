import { invalidParam } from '#shared/errors.js';
import { checkMetaData, mergeMetaData } from '#shared/meta-data.js';
import { type CommandOf, ITEMS_LIST } from '../subscription.commands.js';
import type { SubscriptionEvent } from '../subscription.events.js';
import type { SubscriptionFields, SubscriptionState } from '../subscription.state.js';
import { MESSAGES, checkInt, applyItems, buildDiscounts, mergeInvoiceSettings, mergeInvoiceRetentions, checkRetentions, choosePaymentMethod, base, refuseFinal } from '../subscription.rules.js';

/** Items, discounts, payment method, days_until_due, invoicing and meta_data changed by the API; nothing to change records nothing. */
export function decideUpdateSubscription(command: CommandOf<'UpdateSubscription'>, state: SubscriptionState): SubscriptionEvent[] {
  const f = state.fields!;
  const id = command.subscriptionId;
  refuseFinal('update', id, f);
  const c = command.changes;
  const changes: Partial<SubscriptionFields> = {};
  const naming = command.itemNaming ?? ITEMS_LIST;
  if (c.items !== undefined) changes.items = applyItems(f.items, c.items, naming);
  if (changes.items) {
    const recurring = changes.items.find((it) => it.price.type === 'recurring')!.price;
    if (recurring.billing_period !== f.billing_period || recurring.billing_interval !== f.billing_interval) {
      throw invalidParam(naming.whole, MESSAGES.sameFrequency);
    }
  }
  if (c.discounts !== undefined) changes.discounts = buildDiscounts(c.discounts, command.discountIds, f.currency);
  if (c.payment_method !== undefined) {
    if (f.collection_method !== 'charge') throw invalidParam('payment_method', 'payment_method is only allowed with collection_method charge');
    if (c.payment_method === null) throw invalidParam('payment_method', 'payment_method cannot be removed from a charge subscription');
    changes.payment_method = choosePaymentMethod(c, command.paymentMethods, 'charge');
    changes.payment_information = null;
  }
  if (c.days_until_due !== undefined) {
    if (f.collection_method !== 'collect') throw invalidParam('days_until_due', MESSAGES.daysUntilDueWithCharge);
    checkInt('days_until_due', c.days_until_due, 0, 365);
    changes.days_until_due = c.days_until_due;
  }
  if (c.renewal_invoicing !== undefined) changes.renewal_invoicing = c.renewal_invoicing;
  if (c.invoice_settings !== undefined) changes.invoice_settings = mergeInvoiceSettings(c.invoice_settings, f.invoice_settings);
  if (c.invoice_retentions !== undefined) {
    checkRetentions(c.invoice_retentions);
    changes.invoice_retentions = mergeInvoiceRetentions(c.invoice_retentions, f.invoice_retentions);
  }
  if (c.meta_data !== undefined) changes.meta_data = mergeMetaData(f.meta_data, checkMetaData(c.meta_data)!);
  if (Object.keys(changes).length === 0) return [];
  const removed = changes.items ? f.items.filter((it) => !changes.items!.some((n) => n.id === it.id)).map((it) => it.id) : [];
  return [{ type: 'subscription.updated', data: { ...base(state, id, f.status, changes.meta_data), changes, reason: 'api', removed_items: removed } }];
}
