import { Injectable } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { collectionDecider, collectionStream } from '#collections/domain/collection.decider.js';
import { PayCollectionCommand } from '#collections/application/pay-collection.js';
import { ListCollectionsQuery } from '#collections/application/list-collections.js';
import { GetCustomerQuery } from '#customers/application/get-customer.js';
import { ListCustomerPaymentMethodsQuery } from '#customers/application/list-customer-payment-methods.js';
import type { ListPage } from '#http/list.js';
import type { CardInput } from '#payments/gateways/payment-gateway.port.js';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import { invalidParam, notFound } from '#shared/errors.js';
import { Money } from '#shared/money.js';
import { ownedBy } from '#shared/owner.js';
import { CancelSubscriptionCommand } from '#subscriptions/application/cancel-subscription.js';
import { ListSubscriptionsQuery } from '#subscriptions/application/list-subscriptions.js';
import { PauseSubscriptionCommand } from '#subscriptions/application/pause-subscription.js';
import { ResumeSubscriptionCommand } from '#subscriptions/application/resume-subscription.js';
import { subscriptionDecider, subscriptionStream } from '#subscriptions/domain/subscription.decider.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { type ReplaceResult, ReplaceSubscriptionPaymentMethod } from './replace-subscription-payment-method.js';

/** A portal visitor: one customer of one account and mode, through one portal session. */
export interface PortalVisitor {
  accountId: string;
  mode: 'test' | 'live';
  customer: string;
  portalSession: string;
}

type Doc = Record<string, any>;

/**
 * What the customer portal shows and does, for exactly one customer: the same queries the GET
 * endpoints use, filtered to that customer, and the same commands the API runs, with the portal as
 * the actor in every event's metadata. An id of anything that is not this customer's is "not found",
 * whatever the page's request says.
 */
@Injectable()
export class CustomerPortal {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
    private readonly projections: ProjectionEngine,
    private readonly replace: ReplaceSubscriptionPaymentMethod,
  ) {}

  contextOf(visitor: PortalVisitor, requestId: string | null): CommandContext {
    return {
      accountId: visitor.accountId,
      mode: visitor.mode,
      requestId,
      idempotencyKey: null,
      actor: { type: 'portal', portal_session: visitor.portalSession, customer: visitor.customer },
    };
  }

  async overview(visitor: PortalVisitor): Promise<{ customer: Doc; subscriptions: Doc[]; collections: Doc[]; paymentMethods: Doc[] }> {
    const owner = { accountId: visitor.accountId, mode: visitor.mode };
    const [customer, subs, cols, pms] = await Promise.all([
      this.queries.execute<any, Doc>(new GetCustomerQuery(owner, visitor.customer)),
      this.queries.execute<any, ListPage<Doc>>(new ListSubscriptionsQuery(owner, { customer: visitor.customer, limit: 100 })),
      this.queries.execute<any, ListPage<Doc>>(new ListCollectionsQuery(owner, { customer: visitor.customer, limit: 30 } as never)),
      this.queries.execute<any, ListPage<Doc>>(new ListCustomerPaymentMethodsQuery(owner, visitor.customer, { limit: 100 })),
    ]);
    return {
      customer,
      subscriptions: subs.data.map((s) => ({ ...s, amount: cycleAmount(s) })),
      collections: cols.data,
      // Brand and last four only (and the expiry month and year a person needs to recognise a card).
      paymentMethods: pms.data
        .filter((pm) => pm.status === 'active')
        .map((pm) => ({ id: pm.id, type: pm.type, brand: pm.card?.brand ?? pm.type, last4: pm.card?.last4 ?? pm.wallet?.account_last4 ?? '', exp_month: pm.card?.exp_month ?? null, exp_year: pm.card?.exp_year ?? null })),
    };
  }

  /** The visitor's own subscription (from its stream), else 404 — the same answer as an id that does not exist. */
  async ownSubscription(visitor: PortalVisitor, id: string) {
    const { state } = await this.executor.load(subscriptionDecider, subscriptionStream(id));
    if (!ownedBy(state, visitor) || state.fields!.customer !== visitor.customer) throw notFound('subscription', id);
    return state.fields!;
  }

  async ownCollection(visitor: PortalVisitor, id: string) {
    const { state } = await this.executor.load(collectionDecider, collectionStream(id));
    if (!ownedBy(state, visitor) || state.fields!.customer !== visitor.customer) throw notFound('collection', id);
    return state.fields!;
  }

  async cancel(visitor: PortalVisitor, requestId: string | null, id: string, cancelAt: 'period_end' | 'now'): Promise<void> {
    await this.ownSubscription(visitor, id);
    await this.run(new CancelSubscriptionCommand(this.contextOf(visitor, requestId), id, cancelAt));
  }

  async pause(visitor: PortalVisitor, requestId: string | null, id: string): Promise<void> {
    await this.ownSubscription(visitor, id);
    await this.run(new PauseSubscriptionCommand(this.contextOf(visitor, requestId), id, null));
  }

  async resume(visitor: PortalVisitor, requestId: string | null, id: string): Promise<void> {
    await this.ownSubscription(visitor, id);
    await this.run(new ResumeSubscriptionCommand(this.contextOf(visitor, requestId), id));
  }

  async replaceCard(visitor: PortalVisitor, requestId: string | null, id: string, card: CardInput): Promise<ReplaceResult> {
    await this.ownSubscription(visitor, id);
    const result = await this.replace.withCard(this.contextOf(visitor, requestId), id, card);
    await this.projections.waitFor(result.position);
    return result;
  }

  /** Pays one of the visitor's pending / past_due collections with one of their saved methods (the API's pay command, initiated by the customer). */
  async payCollection(visitor: PortalVisitor, requestId: string | null, id: string, paymentMethod: string): Promise<void> {
    await this.ownCollection(visitor, id);
    if (!/^pm_[A-Za-z0-9]+$/.test(paymentMethod)) throw invalidParam('payment_method', 'Choose one of your saved payment methods');
    await this.run(new PayCollectionCommand(this.contextOf(visitor, requestId), id, { payment_method: paymentMethod }, 'customer'));
  }

  private async run(command: object): Promise<void> {
    const result = await this.commands.execute<object, CommandResult>(command as never);
    await this.projections.waitFor(result.position);
  }
}

/** What a cycle costs at list price (standard prices: unit price × quantity), or null when the price model needs usage or tiers. */
function cycleAmount(sub: Doc): string | null {
  let total = new Money(0);
  for (const item of sub.items ?? []) {
    const price = item.price ?? {};
    const unit = item.amount ?? (price.pricing_model === 'standard' || !price.pricing_model ? price.unit_price : null);
    if (typeof unit !== 'string') return null;
    total = total.plus(new Money(unit).times(item.quantity ?? 1));
  }
  return total.toFixed();
}
