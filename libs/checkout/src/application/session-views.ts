import { Injectable } from '@nestjs/common';
import { AccountGateways } from '#accounts/application/account-gateways.js';
import { customerDecider, customerStream } from '#customers/domain/customer.decider.js';
import { GATEWAY_METHODS, isTokenizable, OFFLINE_GATEWAY } from '#payments/domain/gateways.js';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import { ReadModels } from '#platform/read-models.js';
import { Money, currency as currencyOf, formatAmount } from '#shared/money.js';
import type { AccountDoc } from '#accounts/read-models/account.read-model.js';
import type { PaymentMethodDoc } from '#payments/read-models/payment-method.read-model.js';
import { type CheckoutSessionState, EMAIL_CODE_MAX_ATTEMPTS, STALE_PAYMENT_MS, payableAfterRefusal, priceSession } from '../domain/checkout-session.decider.js';
import type { HostedSessionView } from './hosted-checkout.js';

/** `ana@example.com` → `a**@example.com`: enough for the customer to recognise, little for anyone else. */
export const maskEmail = (email: string) => {
  const [user, domain] = email.split('@');
  return `${user.slice(0, 1)}${'*'.repeat(Math.max(1, Math.min(user.length - 1, 6)))}@${domain ?? ''}`;
};

/** Builds what the hosted page shows from the session's stream (exact right after a write) and a few lookups. */
@Injectable()
export class SessionViews {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly readModels: ReadModels,
    private readonly gateways: AccountGateways,
  ) {}

  async merchantName(accountId: string): Promise<string> {
    const account = await this.readModels.store.get<AccountDoc>('accounts', accountId);
    return account?.name ?? '';
  }

  /**
   * The session's methods ∩ the account's configured gateways. A session that names none: every
   * configured one in payment mode; in subscription mode only those that renew by themselves
   * (tokenizable: card, wallets), as in setup mode, where only those can be saved.
   */
  async allowedMethods(state: CheckoutSessionState): Promise<Record<string, string[]>> {
    const f = state.fields!;
    const configured = await this.gateways.configured(state.owner!.accountId, state.owner!.mode);
    const out: Record<string, string[]> = {};
    for (const g of configured) {
      if (f.payment_methods) {
        if (f.payment_methods[g]) out[g] = [...f.payment_methods[g]];
      } else if (g !== OFFLINE_GATEWAY) {
        out[g] = [...(GATEWAY_METHODS as Record<string, readonly string[]>)[g]];
      }
    }
    if (f.mode === 'setup' || (f.mode === 'subscription' && !f.payment_methods)) {
      for (const g of Object.keys(out)) out[g] = out[g].filter((m) => isTokenizable(m));
    }
    return out;
  }

  async view(sessionId: string, state: CheckoutSessionState, now: Date): Promise<HostedSessionView> {
    const f = state.fields!;
    const owner = state.owner!;
    const cur = currencyOf(f.currency)!;
    let customer: HostedSessionView['customer'] = null;
    const allowed = await this.allowedMethods(state);
    if (f.customer) {
      const c = (await this.executor.load(customerDecider, customerStream(f.customer))).state.fields;
      const methods = await this.readModels.store.find<PaymentMethodDoc>('payment_methods', {
        where: { _account: owner.accountId, is_test: owner.mode === 'test', customer: f.customer, _deleted: false },
        orderBy: { field: '_created', direction: 'desc' },
        limit: 10,
      });
      customer = {
        id: f.customer,
        email: c?.email ?? '',
        name: c?.name ?? null,
        saved_payment_methods: methods
          // A setup session is where the customer gives a new method: none of the saved ones is offered.
          .filter((m) => f.mode !== 'setup' && m.status === 'active' && (allowed[m.gateway] ?? []).includes(m.type))
          .map((m) => ({ id: m.id, gateway: m.gateway, type: m.type, brand: m.card?.brand ?? null, last4: m.card?.last4 ?? m.wallet?.account_last4 ?? null })),
      };
    }
    const ntp = state.lines.find((l) => l.price.pricing_model === 'ntp');
    const recurringTotal =
      f.mode === 'subscription'
        ? priceSession({ ...f, subscription_settings: null, shipping_cost: false }, state.lines.filter((l) => l.price.type === 'recurring'), f.discounts).total
        : null;
    const taxes = f.items.flatMap((item) => {
      const pct = (item.product as { invoice_settings?: { invoice_tax_percentage?: string | null; invoice_tax_id?: string | null } }).invoice_settings?.invoice_tax_percentage;
      if (!pct) return [];
      // Prices include the tax: the part of the item's total that is tax.
      const total = new Money(item.total);
      const tax = total.minus(total.div(new Money(1).plus(new Money(pct).div(100))));
      return [{ item: item.id, name: (item.product as { invoice_settings?: { invoice_tax_id?: string | null } }).invoice_settings?.invoice_tax_id ?? 'IVA', percentage: pct, amount: formatAmount(tax, cur) }];
    });
    const pricedDiscounts = priceSession(f, state.lines, f.discounts).discount_amounts;
    const firstRecurring = state.lines.find((l) => l.price.type === 'recurring')?.price;
    const last = f.last_payment;
    const stale = last?.status === 'in_progress' && now.getTime() - Date.parse(last.started_at) >= STALE_PAYMENT_MS;
    // Open until paid: payable before `expires_at`, unless an attempt is under way (at the gateway, or awaiting a bank or transfer).
    // Complete with a payment the bank then refused: its collection may be paid again on the page until `expires_at`.
    const canPay =
      (f.status === 'open' && now.getTime() < Date.parse(f.expires_at) && f.payment_status !== 'processing' && (last?.status !== 'in_progress' || stale)) ||
      (payableAfterRefusal(f) && now.getTime() < Date.parse(f.expires_at));
    return {
      id: sessionId,
      status: f.status,
      payment_status: f.payment_status,
      mode: f.mode,
      is_test: f.is_test,
      locale: f.locale,
      merchant: { name: await this.merchantName(owner.accountId) },
      description: f.description,
      currency: f.currency,
      items: f.items,
      discounts: f.discounts.map((d) => ({ id: d.id, code: d.code, amount: d.amount, percent: d.percent, amount_off: pricedDiscounts[d.id] ?? formatAmount('0', cur), removable: d.applied_by === 'customer' })),
      taxes,
      shipping_amount: f.shipping_cost ? f.shipping_amount : null,
      subtotal: f.subtotal,
      total: f.total,
      terms:
        f.mode === 'subscription' && firstRecurring
          ? {
              billing_period: firstRecurring.billing_period!,
              billing_interval: firstRecurring.billing_interval!,
              trial_days: f.subscription_settings?.trial_days ?? null,
              duration: f.subscription_settings?.duration ?? null,
              commitment_periods: f.subscription_settings?.commitment_periods ?? null,
              first_total: f.total,
              recurring_total: recurringTotal!,
            }
          : null,
      choose_amount: ntp
        ? { item: f.items.find((i) => (i.price as { id: string }).id === ntp.price.id)?.id ?? ntp.id, min_amount: ntp.price.ntp_pricing?.min_amount ?? null, max_amount: ntp.price.ntp_pricing?.max_amount ?? null, suggested_amount: ntp.price.ntp_pricing?.suggested_amount ?? null }
        : null,
      payment_methods: allowed,
      cta_text: f.cta_text,
      customer,
      identification: {
        step: f.customer ? 'done' : state.signIn.step === 'done' ? 'email' : state.signIn.step,
        email_hint: state.signIn.email ? maskEmail(state.signIn.email) : null,
        attempts_left: state.signIn.step === 'code' ? Math.max(0, EMAIL_CODE_MAX_ATTEMPTS - state.signIn.attempts) : null,
      },
      consent: { acceptance_required: f.consent.acceptance_required, terms_of_service: f.consent.terms_of_service, privacy_policy: f.consent.privacy_policy, accepted: f.consent.accepted_at !== null },
      custom_fields: f.custom_fields.map((c) => ({ ...c })),
      shipping: { required: f.shipping_address_collection, countries: f.shipping_address_countries, address: f.shipping_address },
      last_payment: last && last.status !== 'in_progress' ? { status: last.status, message: last.message, failure_code: last.failure_code, decline_code: last.decline_code, additional_data: last.additional_data } : null,
      can_pay: canPay,
      after_completion: f.after_completion,
      subscription: f.subscription,
      collection: f.collection,
      next_charge_date: f.mode === 'subscription' && f.subscription ? ((await this.readModels.store.get<{ next_renewal_date?: string | null }>('subscriptions', f.subscription))?.next_renewal_date ?? null) : null,
      expires_at: f.expires_at,
    };
  }
}
