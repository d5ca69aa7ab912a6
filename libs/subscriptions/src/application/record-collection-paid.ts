import { Injectable, OnModuleInit } from '@nestjs/common';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import { type CollectionPaidListener, type CollectionPaidNotice, PaymentFollowUps } from '#collections/application/payment-follow-ups.js';
import { subscriptionDecider, subscriptionStream } from '../domain/subscription.decider.js';

/**
 * A subscription hears that one of its collections was paid: the first one activates it
 * (`subscription.activated`), a one-off card becomes its method, `switch_to_charge` turns it to
 * `charge`. Idempotent: a second notice changes nothing.
 */
@Injectable()
export class RecordCollectionPaid implements CollectionPaidListener, OnModuleInit {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly followUps: PaymentFollowUps,
  ) {}

  onModuleInit(): void {
    this.followUps.register(this);
  }

  async collectionPaid(ctx: CommandContext, notice: CollectionPaidNotice): Promise<string | null> {
    if (!notice.subscriptionId) return null;
    const subscriptionId = notice.subscriptionId;
    const { position } = await this.executor.execute(
      subscriptionDecider,
      subscriptionStream(subscriptionId),
      (now) => ({
        type: 'RecordCollectionPaid' as const,
        owner: ctx,
        subscriptionId,
        collectionId: notice.collectionId,
        paymentMethod: notice.paymentMethod,
        tokenizable: notice.tokenizable,
        now,
      }),
      ctx,
    );
    return position;
  }
}
