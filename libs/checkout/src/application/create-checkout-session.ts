import { Inject, Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AccountGateways } from '#accounts/application/account-gateways.js';
import { CollectionLines, type ItemRequest } from '#collections/application/collection-lines.js';
import type { LineInput } from '#collections/domain/pricing.js';
import { CouponRedemptions, type DiscountRequest } from '#coupons/application/coupon-redemptions.js';
import { customerDecider, customerStream, refuseErased } from '#customers/domain/customer.decider.js';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { Config } from '#platform/config.js';
import { CONFIG } from '#platform/tokens.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { invalidParam, notFound } from '#shared/errors.js';
import { newId } from '#shared/ids.js';
import { ownedBy } from '#shared/owner.js';
import { subscriptionDecider, subscriptionStream } from '#subscriptions/domain/subscription.decider.js';
import { TestClockTime } from '#test-clocks/application/test-clock-time.js';
import { type CreateCheckoutSessionInput, type CreateFacts, checkoutSessionDecider, checkoutSessionStream, resolveExpiresAt } from '../domain/checkout-session.decider.js';
import { CheckoutTokens, checkoutSessionUrl } from './checkout-tokens.js';

/** The body of `POST /v1/checkout_session`, as the spec documents it (plus the resource table's other fields). */
export type CreateCheckoutSessionBody = Omit<CreateCheckoutSessionInput, 'lines' | 'discounts'> & {
  items?: ItemRequest[];
  discounts?: DiscountRequest[];
};

export class CreateCheckoutSessionCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly body: CreateCheckoutSessionBody,
  ) {}
}

/**
 * Opens checkout sessions, for the API and for payment links and storefronts: looks up what the
 * decider cannot (prices and rates, coupons, configured gateways, the customer and the subscription
 * to set up), signs the URL, decides and writes `checkout_session.created`.
 */
@Injectable()
export class OpenCheckoutSession {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly lines: CollectionLines,
    private readonly coupons: CouponRedemptions,
    private readonly gateways: AccountGateways,
    private readonly tokens: CheckoutTokens,
    private readonly clocks: TestClockTime,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  /** Checks a session body without writing anything (payment links and storefronts check their settings this way). */
  async validate(request: CommandContext, body: CreateCheckoutSessionBody): Promise<void> {
    const prepared = await this.prepare(request, body, false);
    checkoutSessionDecider.decide(prepared.command(prepared.now), checkoutSessionDecider.initialState);
  }

  async open(request: CommandContext, body: CreateCheckoutSessionBody): Promise<CommandResult & { url: string; token: string }> {
    const { ctx, now, sessionId, command, url, token } = await this.prepare(request, body, true);
    const { position } = await this.executor.execute(checkoutSessionDecider, checkoutSessionStream(sessionId), command, { ...ctx, now });
    return { id: sessionId, position, url, token };
  }

  private async prepare(request: CommandContext, body: CreateCheckoutSessionBody, sign: boolean) {
    const facts: CreateFacts = { configuredGateways: await this.gateways.configured(request.accountId, request.mode), customer: null, setupSubscription: null };
    let customerId = typeof body.customer === 'string' ? body.customer : null;
    if (body.setup_subscription_id) {
      const { state } = await this.executor.load(subscriptionDecider, subscriptionStream(body.setup_subscription_id));
      if (ownedBy(state, request)) {
        facts.setupSubscription = { id: body.setup_subscription_id, customer: state.fields!.customer, status: state.fields!.status };
        customerId ??= state.fields!.customer;
      }
    }
    if (customerId) {
      const { state } = await this.executor.load(customerDecider, customerStream(customerId));
      if (!ownedBy(state, request)) throw notFound('customer', customerId, 'customer');
      // An erased customer gets no new checkout (409 customer_erased; docs/personal-data.md).
      refuseErased(state, customerId);
      facts.customer = { id: customerId, test_clock: state.fields!.test_clock ?? null };
    }
    // A customer on a test clock: the session lives on it (its expiry is honoured by advancing the clock).
    const ctx = await this.clocks.contextFor(request, facts.customer?.test_clock ?? null);
    const now = this.executor.now(ctx);
    const items = body.items ?? [];
    if (!Array.isArray(items)) throw invalidParam('items', 'items must be an array');
    if (items.length > 20) throw invalidParam('items', 'items can have at most 20 items');
    let currency = body.currency;
    if (currency === undefined && items.length > 0) {
      const snaps = [];
      for (const [i, item] of items.entries()) snaps.push((await this.lines.priceSnapshot(ctx, item.price, `items[${i}][price]`)).price);
      currency = (snaps.find((p) => p.type === 'recurring') ?? snaps[0]).currency;
    }
    const cur = String(currency ?? 'COP').toUpperCase();
    const lines: LineInput[] = items.length > 0 ? await this.lines.fromRequests(ctx, items, cur, now) : [];
    const discounts = await this.coupons.resolve(ctx, body.discounts, cur, now);
    const sessionId = newId('cs');
    const expiresAt = resolveExpiresAt(body.expires_at, now);
    const token = sign ? await this.tokens.sign({ sid: sessionId, exp: Date.parse(expiresAt) }) : 'unsigned';
    const url = checkoutSessionUrl(this.config.checkoutUrl, sessionId, token);
    const { items: _items, discounts: _discounts, ...rest } = body;
    const input: CreateCheckoutSessionInput = { ...rest, customer: body.customer ?? (facts.setupSubscription ? facts.setupSubscription.customer : null), lines, discounts };
    const command = (at: Date) => ({ type: 'CreateCheckoutSession' as const, owner: ctx, sessionId, input, facts, url, expiresAt, now: at });
    return { ctx, now, sessionId, command, url, token };
  }
}

/** `POST /v1/checkout_session`. */
@CommandHandler(CreateCheckoutSessionCommand)
export class CreateCheckoutSessionHandler implements ICommandHandler<CreateCheckoutSessionCommand, CommandResult> {
  constructor(private readonly sessions: OpenCheckoutSession) {}

  async execute({ ctx, body }: CreateCheckoutSessionCommand): Promise<CommandResult> {
    const { id, position } = await this.sessions.open(ctx, body);
    return { id, position };
  }
}
