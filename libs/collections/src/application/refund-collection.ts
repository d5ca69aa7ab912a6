import { Inject } from '@nestjs/common';
import { PaymentFollowUps } from './payment-follow-ups.js';
import { laterPosition } from '#event-store/positions.js';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { TestClockTime } from '#test-clocks/application/test-clock-time.js';
import { atCollectionTime } from './collection-command.js';
import { randomBase62 } from '#shared/ids.js';
import { PAYMENT_GATEWAY, type PaymentGateway } from '#payments/gateways/payment-gateway.port.js';
import { type CollectionRefunded, collectionDecider, collectionStream } from '../domain/collection.decider.js';

export class RefundCollectionCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly collectionId: string,
    readonly body: { amount?: string; reason?: string },
    /** Mark refunded: the money went back outside the service; no gateway call. */
    readonly outOfBand = false,
  ) {}
}

/**
 * Refunds a paid collection, fully (no `amount`) or partly: `collection.refunded`. The refund is
 * decided first (so two refunds can never exceed what was paid), then sent to the gateway with the
 * refund id as its idempotency key; out-of-band payments are refunded out of band.
 */
@CommandHandler(RefundCollectionCommand)
export class RefundCollectionHandler implements ICommandHandler<RefundCollectionCommand, CommandResult> {
  constructor(
    private readonly executor: AggregateExecutor,
    @Inject(PAYMENT_GATEWAY) private readonly gateway: PaymentGateway,
    private readonly clocks: TestClockTime,
    private readonly followUps: PaymentFollowUps,
  ) {}

  async execute({ ctx: request, collectionId, body, outOfBand }: RefundCollectionCommand): Promise<CommandResult> {
    const ctx = await atCollectionTime(this.executor, this.clocks, request, collectionId);
    const refundId = `re_${randomBase62(24)}`;
    const result = await this.executor.execute(
      collectionDecider,
      collectionStream(collectionId),
      (now) => ({ type: 'RefundCollection' as const, owner: ctx, collectionId, refundId, amount: body.amount ?? null, reason: body.reason ?? null, now }),
      ctx,
    );
    const refunded = (result.events as unknown as CollectionRefunded[]).find((e) => e.type === 'collection.refunded');
    const f = result.state.fields!;
    if (refunded && !outOfBand && !f.paid_out_of_band && f.payment_method_gateway) {
      await this.gateway.refund({
        idempotencyKey: refundId,
        gateway: f.payment_method_gateway,
        gateway_reference: result.state.transactions.flatMap((t) => t.charges).find((c) => c.id === refunded.data.charge)?.gateway_reference ?? null,
        amount: refunded.data.amount,
        currency: f.currency,
      });
    }
    // A paid, invoiced collection refunded: its invoice gets a credit note for the amount.
    const credited = refunded ? await this.followUps.collectionRefunded(ctx, collectionId, { id: refundId, amount: refunded.data.amount, reason: refunded.data.reason }) : null;
    return { id: collectionId, position: laterPosition(result.position, credited) };
  }
}
