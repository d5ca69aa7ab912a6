/** Fixtures of the subscription decider specs (subscription/decide/*.spec.ts): commands, prices and histories. */
import { priceSnapshot } from '#collections/domain/testing/price-snapshot.js';
import type { PriceSnapshot } from '#collections/domain/pricing.js';
import { fold } from '#shared/decider.js';
import {
  type ItemInput,
  type PaymentMethodFacts,
  type SubscriptionChanges,
  type SubscriptionCommand,
  type SubscriptionCreated,
  type SubscriptionEvent,
  type SubscriptionInput,
  type SubscriptionStatus,
  subscriptionDecider,
} from '../subscription.decider.js';

export const now = new Date('2026-01-31T10:00:00.000Z');
export const NOW = now.toISOString();
export const at = (hours: number) => new Date(now.getTime() + hours * 3_600_000);
export const owner = { accountId: 'acct_1', mode: 'test' as const };
export type Owner = { accountId: string; mode: 'test' | 'live' };
export const id = 'sub_1';

// ---- price snapshots ----

export const price = (unit_price: string | null, over: Partial<PriceSnapshot> = {}): PriceSnapshot => priceSnapshot(unit_price, over);
export const monthly = price('59500.00');
export const monthlyAddon = price('10000.00', { id: 'price_addon' });
export const quarterly = price('150000.00', { id: 'price_quarterly', billing_interval: 3 });
export const yearly = price('600000.00', { id: 'price_yearly', billing_period: 'year' });
export const setup = price('19000.00', { id: 'price_setup', type: 'one_time', billing_period: null, billing_interval: null });
export const ntpMonthly = price(null, { id: 'price_ntp', pricing_model: 'ntp', ntp_pricing: { min_amount: '5000.00', max_amount: null, suggested_amount: '20000.00' } });
export const usdMonthly = price('15.00', { id: 'price_usd', currency: 'USD' });
export const product = { id: 'prod_1', name: 'Plan Pro' };
export const setupProduct = { id: 'prod_2', name: 'Instalación' };

export const item = (p: PriceSnapshot, over: Partial<ItemInput> = {}): ItemInput => ({ newId: 'si_1', price: p, product, quantity: 1, ...over });

// ---- commands ----

export const create = (input: Partial<SubscriptionInput> = {}, opts: { facts?: Partial<PaymentMethodFacts>; migrate?: boolean; owner?: Owner; now?: Date } = {}): SubscriptionCommand => ({
  type: 'CreateSubscription',
  owner: opts.owner ?? owner,
  subscriptionId: id,
  firstCollectionId: 'col_1',
  discountIds: ['sd_1', 'sd_2', 'sd_3'],
  input: { customer: 'cus_1', items: [item(monthly)], ...input },
  paymentMethods: { customerDefault: 'pm_default', requestedUsable: true, ...opts.facts },
  migrate: opts.migrate ?? false,
  now: opts.now ?? now,
});
export const collectInput = (over: Partial<SubscriptionInput> = {}): Partial<SubscriptionInput> => ({ collection_method: 'collect', days_until_due: 5, ...over });
export const paid = (collectionId: string, over: { paymentMethod?: string | null; tokenizable?: boolean; hours?: number } = {}): SubscriptionCommand => ({
  type: 'RecordCollectionPaid',
  owner,
  subscriptionId: id,
  collectionId,
  paymentMethod: over.paymentMethod ?? null,
  tokenizable: over.tokenizable ?? false,
  now: at(over.hours ?? 1),
});
export const update = (changes: SubscriptionChanges, facts: Partial<PaymentMethodFacts> = {}, discountIds = ['sd_4', 'sd_5']): SubscriptionCommand => ({
  type: 'UpdateSubscription',
  owner,
  subscriptionId: id,
  changes,
  discountIds,
  paymentMethods: { customerDefault: 'pm_default', requestedUsable: true, ...facts },
  now: at(2),
});
export const cancel = (cancelAt: 'period_end' | 'now', o: Owner = owner): SubscriptionCommand => ({ type: 'CancelSubscription', owner: o, subscriptionId: id, cancelAt, now: at(3) });
export const pause = (resumesAt: string | null = null): SubscriptionCommand => ({ type: 'PauseSubscription', owner, subscriptionId: id, resumesAt, now: at(4) });
export const resume = (): SubscriptionCommand => ({ type: 'ResumeSubscription', owner, subscriptionId: id, now: at(5) });
export const deleteDiscount = (discountId: string): SubscriptionCommand => ({ type: 'DeleteSubscriptionDiscount', owner, subscriptionId: id, discountId, now: at(2) });

export function history(...commands: SubscriptionCommand[]): SubscriptionEvent[] {
  const events: SubscriptionEvent[] = [];
  for (const c of commands) events.push(...subscriptionDecider.decide(c, fold(subscriptionDecider, events)));
  return events;
}
export const fieldsOf = (events: SubscriptionEvent[]) => fold(subscriptionDecider, events).fields!;
export const types = (events: SubscriptionEvent[]) => events.map((e) => e.type);
/** The data of a creation event. */
export const createdData = (events: SubscriptionEvent[]) => (events[0] as SubscriptionCreated).data;

/** A subscription created in a status no command here reaches (the scheduler's transitions). */
export function createdIn(status: SubscriptionStatus): SubscriptionEvent[] {
  const [created] = history(create(collectInput())) as SubscriptionCreated[];
  return [{ ...created, data: { ...created.data, status } }];
}

export const incomplete = () => history(create());
export const active = () => history(create(collectInput()));
export const trialing = () => history(create({ trial_days: 14 }));
export const scheduled = () => history(create({ schedule_date: '2026-03-01T10:00:00.000Z' }));
export const paused = () => history(create(collectInput()), pause());
export const pendingCancel = () => history(create(collectInput()), cancel('period_end'));
export const canceled = () => history(create(collectInput()), cancel('now'));
