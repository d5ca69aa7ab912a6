import { Injectable } from '@nestjs/common';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import { invalidParam, notFound } from '#shared/errors.js';
import { Money, currency as currencyOf, formatAmount } from '#shared/money.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import { linkClosedError, linkClosedReason, paymentLinkDecider, paymentLinkStream } from '../domain/payment-link.decider.js';
import { storefrontDecider, storefrontStream } from '../domain/storefront.decider.js';
import { OpenCheckoutSession } from './create-checkout-session.js';
import type { OpenedSession, PageRequest, PaymentLinkView, StorefrontView } from './hosted-checkout.js';
import { sessionBodyOfLink } from './payment-link-commands.js';
import { SessionViews } from './session-views.js';

const pageContext = (owner: { accountId: string; mode: 'test' | 'live' }, req?: PageRequest): CommandContext => ({
  accountId: owner.accountId,
  mode: owner.mode,
  requestId: req?.request_id ?? null,
  idempotencyKey: null,
});

/** The public side of payment links and storefronts: their landing pages (read only) and the sessions a customer starting to pay opens. */
@Injectable()
export class PaymentLinkPages {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly sessions: OpenCheckoutSession,
    private readonly views: SessionViews,
    private readonly projections: ProjectionEngine,
  ) {}

  async paymentLink(linkId: string): Promise<PaymentLinkView> {
    const { state } = await this.executor.load(paymentLinkDecider, paymentLinkStream(String(linkId)));
    if (!state.exists) throw notFound('payment link', String(linkId));
    const f = state.fields!;
    const ntp = f.items.find((it) => it.price.pricing_model === 'ntp');
    return {
      id: linkId,
      merchant: { name: await this.views.merchantName(state.owner!.accountId) },
      active: f.active,
      closed_reason: linkClosedReason(f, state.reserved.length),
      cta_text: f.cta_text,
      items: f.items.map((it) => {
        const unit = it.price.pricing_model === 'ntp' ? null : ((it.price.unit_price as string | null | undefined) ?? null);
        const cur = currencyOf(it.price.currency);
        return {
          name: it.product.name,
          price: it.price.id,
          quantity: it.quantity,
          unit_price: unit,
          amount: unit !== null && cur ? formatAmount(new Money(unit).times(it.quantity).toFixed(), cur) : null,
          currency: it.price.currency,
          billing_period: it.price.type === 'recurring' ? ((it.price.billing_period as string | null | undefined) ?? null) : null,
          billing_interval: it.price.type === 'recurring' ? ((it.price.billing_interval as number | null | undefined) ?? 1) : null,
        };
      }),
      choose_amount: ntp
        ? { min_amount: ntp.price.ntp_pricing?.min_amount ?? null, max_amount: ntp.price.ntp_pricing?.max_amount ?? null, suggested_amount: ntp.price.ntp_pricing?.suggested_amount ?? null, currency: ntp.price.currency }
        : null,
      is_test: state.owner!.mode === 'test',
    };
  }

  /** The visitor starts paying: a new session carrying the link's items and settings (refused when the link is inactive or used up). */
  async openPaymentLink(linkId: string, req: PageRequest): Promise<OpenedSession> {
    const { state } = await this.executor.load(paymentLinkDecider, paymentLinkStream(String(linkId)));
    if (!state.exists) throw notFound('payment link', String(linkId));
    const f = state.fields!;
    const reason = linkClosedReason(f, state.reserved.length);
    if (reason) throw linkClosedError(linkId, reason);
    const ctx = pageContext(state.owner!, req);
    const body = { ...(sessionBodyOfLink(f.mode, f.items, f.settings, f.cta_text) as object), payment_link: linkId };
    const opened = await this.sessions.open(ctx, body as never);
    await this.projections.waitFor(opened.position);
    return { session: opened.id, url: opened.url, token: opened.token };
  }

  async storefront(storefrontId: string): Promise<StorefrontView> {
    const { state } = await this.executor.load(storefrontDecider, storefrontStream(String(storefrontId)));
    if (!state.exists) throw notFound('storefront', String(storefrontId));
    const f = state.fields!;
    const products = new Map<string, StorefrontView['products'][number]>();
    for (const it of f.items) {
      const p = it.product as { id: string; name: string; description?: string | null; image?: string | null };
      if (!products.has(p.id)) products.set(p.id, { id: p.id, name: p.name, description: p.description ?? null, image: p.image ?? null, prices: [] });
      products.get(p.id)!.prices.push({
        id: it.price.id,
        unit_price: it.price.unit_price ?? null,
        currency: it.price.currency,
        type: it.price.type,
        billing_period: it.price.billing_period ?? null,
        billing_interval: it.price.billing_interval ?? null,
        pricing_model: it.price.pricing_model,
      });
    }
    return {
      id: storefrontId,
      name: f.name,
      merchant: { name: await this.views.merchantName(state.owner!.accountId) },
      active: f.active,
      cta_text: f.cta_text ?? 'Pagar',
      products: [...products.values()],
      is_test: state.owner!.mode === 'test',
    };
  }

  async openStorefrontChoice(storefrontId: string, choice: { price: string; quantity?: number }, req: PageRequest): Promise<OpenedSession> {
    const { state } = await this.executor.load(storefrontDecider, storefrontStream(String(storefrontId)));
    if (!state.exists) throw notFound('storefront', String(storefrontId));
    const f = state.fields!;
    if (!f.active) throw invalidParam('storefront', 'This storefront is not active');
    const item = f.items.find((it) => it.price.id === choice?.price);
    if (!item) throw invalidParam('price', 'Choose a price of this storefront');
    const quantity = choice.quantity ?? 1;
    if (!Number.isInteger(quantity) || quantity < 1 || quantity > 1000) throw invalidParam('quantity', 'quantity must be an integer from 1 to 1000');
    const mode = item.price.type === 'recurring' ? 'subscription' : 'payment';
    const settings = mode === 'payment' ? { ...f.settings, subscription_settings: undefined } : f.settings;
    const cta = f.cta_text ?? (mode === 'subscription' ? 'Suscribirse' : 'Pagar');
    const body = { ...(sessionBodyOfLink(mode, [{ ...item, quantity }], settings, cta) as object), storefront: storefrontId };
    const opened = await this.sessions.open(pageContext(state.owner!, req), body as never);
    await this.projections.waitFor(opened.position);
    return { session: opened.id, url: opened.url, token: opened.token };
  }
}
