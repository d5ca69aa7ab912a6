import { invalidParam, missingParam } from '#shared/errors.js';
import { Money, currency as currencyOf, decimalPlaces, formatAmount, isDecimalString } from '#shared/money.js';
import type { CommandOf } from '../subscription.commands.js';
import type { SubscriptionEvent } from '../subscription.events.js';
import type { SubscriptionState } from '../subscription.state.js';
import { base, refuseFinal } from '../subscription.rules.js';

/** The shipping item is set (its amount in the subscription currency) or cleared. */
export function decideSetShippingItem(command: CommandOf<'SetShippingItem'>, state: SubscriptionState): SubscriptionEvent[] {
  const f = state.fields!;
  const id = command.subscriptionId;
  refuseFinal('change the shipping item of', id, f);
  const item = command.shippingItem;
  const cur = currencyOf(f.currency)!;
  if (item) {
    if (typeof item.description !== 'string' || !item.description.trim()) throw missingParam('description');
    if (!isDecimalString(item.amount) || new Money(item.amount).lte(0)) throw invalidParam('amount', 'amount must be a decimal amount greater than 0');
    if (decimalPlaces(item.amount) > cur.exponent) throw invalidParam('amount', `amount has more decimals than ${cur.code} allows (${cur.exponent})`);
  }
  const normalized = item ? { description: item.description.trim(), amount: formatAmount(item.amount, cur) } : null;
  return [{ type: 'subscription.updated', data: { ...base(state, id, f.status), changes: { shipping_item: normalized }, reason: 'api' } }];
}
