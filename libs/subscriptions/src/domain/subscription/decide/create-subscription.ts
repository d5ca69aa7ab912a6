import { addHours } from 'date-fns';
import { DomainError, invalidParam, missingParam } from '#shared/errors.js';
import { checkMetaData } from '#shared/meta-data.js';
import { currency as currencyOf } from '#shared/money.js';
import { gatewayOffers, isGatewayId } from '#payments/domain/gateways.js';
import { cycleBoundary } from '../../billing-period.js';
import type { CommandOf } from '../subscription.commands.js';
import type { SubscriptionEvent } from '../subscription.events.js';
import { FIRST_PAYMENT_WINDOW_HOURS, type SubscriptionFields, type SubscriptionState, type SubscriptionStatus } from '../subscription.state.js';
import { MESSAGES, applyItems, buildDiscounts, checkInt, checkRetentions, choosePaymentMethod, mergeInvoiceRetentions, mergeInvoiceSettings, parseDate } from '../subscription.rules.js';

/** A new subscription: the spec's rejections in the order a reader of its table meets them, then its starting state (incomplete, active, trialing, scheduled or migrated). */
export function decideCreateSubscription(c: CommandOf<'CreateSubscription'>, state: SubscriptionState): SubscriptionEvent[] {
  if (state.exists) throw new DomainError('resource_already_exists', `Subscription ${c.subscriptionId} already exists`, null, 409);
  const i = c.input;
  const method = i.collection_method ?? 'charge';
  if (method !== 'charge' && method !== 'collect') throw invalidParam('collection_method', 'collection_method must be charge or collect');
  // The spec's rejections, in the order a reader of the table meets them.
  if (method === 'charge' && i.days_until_due !== undefined && i.days_until_due !== null) throw invalidParam('days_until_due', MESSAGES.daysUntilDueWithCharge);
  if (method === 'collect' && (i.days_until_due === undefined || i.days_until_due === null)) {
    throw missingParam('days_until_due', 'days_until_due is required with collection_method collect');
  }
  checkInt('days_until_due', i.days_until_due, 0, 365);
  if (i.payment_method && i.payment_information) throw invalidParam('payment_information', MESSAGES.paymentMethodXorInformation);
  if (method === 'collect' && i.payment_method) throw invalidParam('payment_method', 'payment_method is only allowed with collection_method charge');
  if (method === 'collect' && i.payment_information) throw invalidParam('payment_information', 'payment_information is only allowed with collection_method charge');
  if (i.first_payment_invoicing !== undefined && !['create', 'after'].includes(i.first_payment_invoicing)) {
    throw invalidParam('first_payment_invoicing', 'first_payment_invoicing must be create or after');
  }
  if (method === 'charge' && i.first_payment_invoicing === 'create') throw invalidParam('first_payment_invoicing', MESSAGES.firstPaymentInvoicingCreateWithCharge);
  if (i.switch_to_charge && method !== 'collect') throw invalidParam('switch_to_charge', 'switch_to_charge is only allowed with collection_method collect');
  let schedule: Date | null = null;
  if (i.schedule_date !== undefined && i.schedule_date !== null) {
    if (c.migrate) throw invalidParam('schedule_date', 'schedule_date is not allowed when migrating; send next_renewal_date');
    if (i.payment_information) throw invalidParam('payment_information', MESSAGES.paymentInformationWithSchedule);
    if (i.trial_days !== undefined && i.trial_days !== null) throw invalidParam('trial_days', MESSAGES.trialWithSchedule);
    schedule = parseDate('schedule_date', i.schedule_date);
    if (schedule.getTime() <= c.now.getTime()) throw invalidParam('schedule_date', 'schedule_date must be in the future');
  }
  checkInt('trial_days', i.trial_days, 1, 730);
  checkInt('duration', i.duration, 1, 1000);
  checkInt('commitment_periods', i.commitment_periods, 1, 1000);
  if (i.duration && i.commitment_periods && i.commitment_periods > i.duration) {
    throw invalidParam('commitment_periods', 'commitment_periods cannot exceed duration');
  }
  if (i.payment_information) {
    const pi = i.payment_information;
    if (!isGatewayId(pi.gateway)) throw invalidParam('payment_information[gateway]', `Unknown gateway ${pi.gateway}`);
    if (!gatewayOffers(pi.gateway, pi.type)) throw invalidParam('payment_information[type]', `${pi.gateway} does not offer ${pi.type}`);
  }
  if (i.meta_data !== undefined) checkMetaData(i.meta_data);
  checkRetentions(i.invoice_retentions);
  const items = applyItems([], i.items ?? []);
  const recurring = items.find((it) => it.price.type === 'recurring')!.price;
  const currency = (i.currency ?? recurring.currency).toUpperCase();
  if (!currencyOf(currency)) throw invalidParam('currency', `currency must be an ISO 4217 currency code (got ${i.currency})`);
  if (items.some((it) => it.price.pricing_model === 'ntp') && i.trial_days) {
    throw invalidParam('trial_days', 'A subscription with an ntp price cannot have a free trial');
  }
  const discounts = buildDiscounts(i.discounts, c.discountIds, currency);

  const paymentMethod = i.payment_information ? null : choosePaymentMethod(i, c.paymentMethods, method);
  if (method === 'charge' && !i.payment_information && paymentMethod === null) {
    throw new DomainError(
      'payment_method_required',
      `Customer ${i.customer} has no default payment method; send payment_method or payment_information`,
      'payment_method',
      400,
    );
  }

  const now = c.now;
  const period = recurring.billing_period!;
  const interval = recurring.billing_interval!;
  let status: SubscriptionStatus;
  let anchor: Date | null;
  let nextRenewal: Date | null;
  let trialEnd: string | null = null;
  let firstCollection: string | null = c.firstCollectionId;
  if (c.migrate) {
    if (!i.next_renewal_date) throw missingParam('next_renewal_date', 'next_renewal_date is required when migrating a subscription');
    const next = parseDate('next_renewal_date', i.next_renewal_date);
    if (next.getTime() <= now.getTime()) throw invalidParam('next_renewal_date', 'next_renewal_date must be in the future');
    if (i.trial_days) throw invalidParam('trial_days', 'trial_days is not allowed when migrating; send next_renewal_date');
    status = 'active';
    anchor = next;
    nextRenewal = next;
    firstCollection = null;
  } else if (schedule) {
    status = 'scheduled';
    anchor = schedule;
    nextRenewal = schedule;
    firstCollection = null;
  } else if (i.trial_days) {
    status = 'trialing';
    // Whole 24-hour days (date-fns' addDays works in the host's time zone and shifts across DST).
    const end = new Date(now.getTime() + i.trial_days * 86_400_000);
    trialEnd = end.toISOString();
    anchor = end;
    nextRenewal = end;
  } else {
    status = method === 'charge' ? 'incomplete' : 'active';
    anchor = now;
    nextRenewal = cycleBoundary(now, period, interval, 1);
  }
  if (!c.migrate && i.next_renewal_date !== undefined) throw invalidParam('next_renewal_date', 'next_renewal_date is only allowed when migrating');

  const fields: SubscriptionFields = {
    customer: i.customer,
    status,
    items,
    currency,
    billing_period: period,
    billing_interval: interval,
    collection_method: method,
    payment_method: paymentMethod,
    payment_information: i.payment_information ? { gateway: i.payment_information.gateway, type: i.payment_information.type } : null,
    days_until_due: method === 'collect' ? i.days_until_due! : null,
    first_payment_invoicing: i.first_payment_invoicing ?? 'after',
    renewal_invoicing: i.renewal_invoicing ?? true,
    schedule_date: schedule ? schedule.toISOString() : null,
    trial_days: i.trial_days ?? null,
    trial_end: trialEnd,
    duration: i.duration ?? null,
    commitment_periods: i.commitment_periods ?? null,
    usage_based: i.usage_based ?? false,
    discounts,
    switch_to_charge: i.switch_to_charge ?? false,
    invoice_settings: mergeInvoiceSettings(i.invoice_settings),
    invoice_retentions: mergeInvoiceRetentions(i.invoice_retentions),
    meta_data: i.meta_data ?? {},
    latest_collection: firstCollection,
    next_renewal_date: nextRenewal ? nextRenewal.toISOString() : null,
    current_period_start: status === 'scheduled' ? null : status === 'trialing' ? now.toISOString() : c.migrate ? null : now.toISOString(),
    current_period_end: status === 'scheduled' ? null : nextRenewal?.toISOString() ?? null,
    billing_cycle_anchor: anchor ? anchor.toISOString() : null,
    collections_count: firstCollection && status !== 'trialing' ? 1 : 0,
    first_payment_expires_at: status === 'incomplete' ? (c.checkoutSession?.expires_at ?? addHours(now, FIRST_PAYMENT_WINDOW_HOURS).toISOString()) : null,
    ...(c.checkoutSession ? { _checkout_session: c.checkoutSession.id } : {}),
    activated_at: status === 'active' ? now.toISOString() : null,
    cancel_at: null,
    canceled_at: null,
    paused_at: null,
    resumes_at: null,
    ended_at: null,
    shipping: null,
    shipping_item: null,
    migrated: c.migrate,
    test_clock: i.test_clock ?? null,
    cycle: status === 'scheduled' || status === 'trialing' || c.migrate ? 0 : 1,
    usage_reported_for: null,
    usage_collect_at: null,
    expired_at: null,
  };
  return [
    {
      type: status === 'scheduled' ? 'subscription.scheduled' : 'subscription.created',
      data: {
        id: c.subscriptionId,
        account_id: c.owner.accountId,
        is_test: c.owner.mode === 'test',
        created_at: now.toISOString(),
        first_collection: firstCollection,
        ...fields,
      },
    },
  ];
}
