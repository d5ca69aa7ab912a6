import { Injectable } from '@nestjs/common';
import { ownedBy } from '#shared/owner.js';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import { notFound, invalidParam } from '#shared/errors.js';
import { newId } from '#shared/ids.js';
import { customerDecider, customerStream, refuseErased } from '#customers/domain/customer.decider.js';
import { CollectionLines } from '#collections/application/collection-lines.js';
import { ResolvePaymentSource } from '#payments/application/resolve-payment-source.js';
import { type ItemInput, type ItemNaming, ITEMS_LIST, type PaymentMethodFacts } from '../domain/subscription.decider.js';

/** An item as a request sends it: a new one (`price`), or a change to an existing one (`id`). */
export interface ItemRequest {
  id?: string;
  price?: string;
  quantity?: number;
  amount?: string | null;
  deleted?: boolean;
}

/**
 * What the subscription decider needs from outside its stream, looked up before deciding: the
 * customer, price snapshots for items, the facts about payment methods.
 */
@Injectable()
export class SubscriptionInputs {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly lines: CollectionLines,
    private readonly sources: ResolvePaymentSource,
  ) {}

  async customer(ctx: CommandContext, customerId: string) {
    if (typeof customerId !== 'string' || !customerId) throw invalidParam('customer', 'customer is required');
    const { state } = await this.executor.load(customerDecider, customerStream(customerId));
    if (!ownedBy(state, ctx)) throw notFound('customer', customerId, 'customer');
    // An erased customer is subscribed to nothing new (409 customer_erased; docs/personal-data.md).
    refuseErased(state, customerId);
    return state.fields!;
  }

  async items(ctx: CommandContext, requests: ItemRequest[] | undefined, naming: ItemNaming = ITEMS_LIST): Promise<ItemInput[]> {
    if (requests === undefined) return [];
    const out: ItemInput[] = [];
    for (const [i, r] of requests.entries()) {
      const item: ItemInput = {};
      if (r.id !== undefined) item.id = r.id;
      else item.newId = newId('si');
      if (r.price !== undefined) Object.assign(item, await this.lines.priceSnapshot(ctx, r.price, naming.field(i, 'price')));
      if (r.quantity !== undefined) item.quantity = r.quantity;
      if (r.amount !== undefined) item.amount = r.amount;
      if (r.deleted) item.deleted = true;
      out.push(item);
    }
    return out;
  }

  async paymentMethodFacts(ctx: CommandContext, customerId: string, defaultMethod: string | null, requested: string | null | undefined): Promise<PaymentMethodFacts> {
    return {
      customerDefault: defaultMethod,
      requestedUsable: requested ? await this.sources.usable(ctx, customerId, requested) : false,
    };
  }
}
