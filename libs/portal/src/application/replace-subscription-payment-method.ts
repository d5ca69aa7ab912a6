import { Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { laterPosition } from '#event-store/positions.js';
import { AccountGateways } from '#accounts/application/account-gateways.js';
import { CollectionPayments } from '#collections/application/collection-payments.js';
import { collectionDecider, collectionStream } from '#collections/domain/collection.decider.js';
import { ResolvePaymentSource } from '#payments/application/resolve-payment-source.js';
import { SavePaymentMethod } from '#payments/application/save-payment-method.js';
import { gatewayOffers } from '#payments/domain/gateways.js';
import type { CardInput } from '#payments/gateways/payment-gateway.port.js';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { DomainError, invalidParam } from '#shared/errors.js';
import { UpdateSubscriptionCommand } from '#subscriptions/application/update-subscription.js';
import { subscriptionDecider, subscriptionStream } from '#subscriptions/domain/subscription.decider.js';

export interface ReplaceResult extends CommandResult {
  payment_method: string;
  /** When the subscription was past_due/unpaid: what retrying its open collection with the new card did. */
  recovery: 'paid' | 'failed' | 'processing' | null;
  recovery_message: string | null;
  /** The failed retry's codes, for a page to say why in its own words. */
  recovery_failure: { failure_code: string | null; decline_code: string | null } | null;
}

/**
 * Replaces a subscription's payment method with a card tokenized by the gateway, and retries the
 * open collection of a `past_due` / `unpaid` subscription with it — the steps of setup-mode checkout
 * with `setup_subscription_id` (branch `checkout`, PayCheckoutSession.setup), over the same
 * application services: ResolvePaymentSource (gateway checks + tokenization: the card goes no
 * further), SavePaymentMethod, UpdateSubscriptionCommand, CollectionPayments.attempt.
 * The card is saved only once the gateway has tokenized it; the raw fields are never stored or logged.
 */
@Injectable()
export class ReplaceSubscriptionPaymentMethod {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly commands: CommandBus,
    private readonly sources: ResolvePaymentSource,
    private readonly save: SavePaymentMethod,
    private readonly payments: CollectionPayments,
    private readonly gateways: AccountGateways,
  ) {}

  async withCard(ctx: CommandContext, subscriptionId: string, card: CardInput): Promise<ReplaceResult> {
    const sub = (await this.executor.load(subscriptionDecider, subscriptionStream(subscriptionId))).state.fields!;
    const gateway = await this.cardGateway(ctx, sub.payment_information?.gateway ?? null);
    const source = await this.sources.oneOff(ctx, { gateway, type: 'card', card }, sub.customer, 'card');
    let paymentMethod = source.payment_method;
    let position: string | null = null;
    if (source.save_as) {
      position = await this.save.afterPayment(ctx, sub.customer, source);
      paymentMethod = source.save_as.payment_method_id;
    }
    if (!paymentMethod) throw invalidParam('card', 'The card could not be saved');
    const updated = await this.commands.execute<UpdateSubscriptionCommand, CommandResult>(new UpdateSubscriptionCommand(ctx, subscriptionId, { payment_method: paymentMethod }));
    position = laterPosition(position, updated.position);
    const after = (await this.executor.load(subscriptionDecider, subscriptionStream(subscriptionId))).state.fields!;
    let recovery: ReplaceResult['recovery'] = null;
    let recoveryMessage: string | null = null;
    let recoveryFailure: ReplaceResult['recovery_failure'] = null;
    if ((after.status === 'past_due' || after.status === 'unpaid') && after.latest_collection) {
      const col = (await this.executor.load(collectionDecider, collectionStream(after.latest_collection))).state.fields!;
      if (['pending', 'past_due', 'uncollectible'].includes(col.status)) {
        const stored = await this.sources.stored(ctx, sub.customer, paymentMethod);
        const result = await this.payments.attempt(ctx, after.latest_collection, stored, 'customer');
        position = laterPosition(position, result.position);
        recovery = result.outcome;
        recoveryMessage = result.failure?.failure_message ?? null;
        recoveryFailure = result.failure ? { failure_code: result.failure.failure_code ?? null, decline_code: result.failure.decline_code ?? null } : null;
      }
    }
    return { id: subscriptionId, position, payment_method: paymentMethod, recovery, recovery_message: recoveryMessage, recovery_failure: recoveryFailure };
  }

  /** The subscription's own gateway when it takes cards, else the account's first configured gateway that does. */
  private async cardGateway(ctx: CommandContext, preferred: string | null): Promise<string> {
    const configured = await this.gateways.configured(ctx.accountId, ctx.mode);
    if (preferred && configured.includes(preferred) && gatewayOffers(preferred as never, 'card')) return preferred;
    const any = configured.find((g) => gatewayOffers(g as never, 'card'));
    if (!any) throw new DomainError('gateway_not_configured', 'No gateway that takes cards is configured on the account', 'card', 400);
    return any;
  }
}
