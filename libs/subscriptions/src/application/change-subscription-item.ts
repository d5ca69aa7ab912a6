import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import { type Owner, ReadModels } from '#platform/read-models.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { notFound } from '#shared/errors.js';
import type { SubscriptionItemDoc } from '../read-models/subscription-item.read-model.js';
import { TestClockTime } from '#test-clocks/application/test-clock-time.js';
import { subscriptionDecider, subscriptionStream } from '../domain/subscription.decider.js';
import { type ItemRequest, SubscriptionInputs } from './subscription-inputs.js';
import { onSubscription } from './subscription-command.js';

/** Create (`subscription` + `price`), update (`id` + changes) or delete (`id` + `deleted`) one subscription item. */
export class ChangeSubscriptionItemCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly change: ItemRequest & { subscription?: string },
  ) {}
}

/** The subscription an item belongs to (404 naming the item when the caller cannot see it). */
export async function subscriptionOfItem(readModels: ReadModels, owner: Owner, itemId: string): Promise<string> {
  const item = await readModels.find<SubscriptionItemDoc>('subscription_items', itemId, owner);
  if (!item) throw notFound('subscription item', itemId);
  return item.subscription;
}

/**
 * Subscription items are entities of their subscription: each change is an items patch decided by
 * the subscription (same rules as an update: frequency, at least one recurring price, quantities).
 */
@CommandHandler(ChangeSubscriptionItemCommand)
export class ChangeSubscriptionItemHandler implements ICommandHandler<ChangeSubscriptionItemCommand, CommandResult> {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly readModels: ReadModels,
    private readonly inputs: SubscriptionInputs,
    private readonly clocks: TestClockTime,
  ) {}

  async execute({ ctx: caller, change }: ChangeSubscriptionItemCommand): Promise<CommandResult> {
    const { subscription, ...request } = change;
    const subscriptionId = request.id ? await subscriptionOfItem(this.readModels, caller, request.id) : subscription!;
    // Decided at the subscription's test clock's time, when it lives on one.
    const { state } = await this.executor.load(subscriptionDecider, subscriptionStream(subscriptionId));
    const ctx = await this.clocks.contextFor(caller, state.fields?.test_clock);
    // One item on its own endpoint: errors name its own fields (`price`, not `items[0][price]`).
    const itemNaming = { field: (_: number, name: string) => name, whole: request.id ? 'id' : 'price' };
    const [item] = await this.inputs.items(ctx, [request], itemNaming);
    const result = await onSubscription(this.executor, ctx, subscriptionId, (now) => ({
      type: 'UpdateSubscription',
      owner: ctx,
      subscriptionId,
      changes: { items: [item] },
      discountIds: [],
      paymentMethods: { customerDefault: null, requestedUsable: false },
      itemNaming,
      now,
    }));
    return { id: request.id ?? item.newId!, position: result.position };
  }
}
