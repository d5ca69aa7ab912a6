import { Injectable, OnModuleInit } from '@nestjs/common';
import { PaymentFollowUps, type CollectionPaidNotice } from '../../../collections/src/application/payment-follow-ups.js';
import { AggregateExecutor } from '../../../platform/src/aggregate-executor.js';
import type { CommandContext } from '../../../platform/src/command-context.js';
import { ReadModels } from '../../../platform/src/read-models.js';
import { Scheduler } from '../../../scheduling/src/scheduler.js';
import type { DeadlineDoc } from '../../../scheduling/src/deadline-source.js';
import type { CheckoutSessionDoc } from '../../../../projections/checkout-sessions.projection.js';
import { onSession } from './checkout-session-command.js';

/**
 * What time and payments do to sessions: the `expire` deadline (registered with the scheduler, so
 * test clocks honour it) and a session's collection paid later (an asynchronous method settled, or
 * the collection paid on its own page) marks the session paid.
 */
@Injectable()
export class CheckoutFollowUps implements OnModuleInit {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly readModels: ReadModels,
    private readonly followUps: PaymentFollowUps,
    private readonly scheduler: Scheduler,
  ) {}

  onModuleInit(): void {
    this.followUps.register({ collectionPaid: (ctx, notice) => this.collectionPaid(ctx, notice) });
    this.scheduler.register({ name: 'checkout_session', collection: 'checkout_sessions', run: (ctx, doc) => this.expire(ctx, doc) });
  }

  /** `expires_at` passed on an open session: `checkout_session.expired` (decided at the deadline's own time). */
  async expire(ctx: CommandContext, doc: DeadlineDoc): Promise<string | null> {
    const session = doc as unknown as CheckoutSessionDoc;
    const sessionId = doc.id;
    const { position } = await onSession(this.executor, ctx, sessionId, (now) => ({ type: 'ExpireCheckoutSession', owner: ctx, sessionId, expected: session.expires_at, now }));
    return position;
  }

  async collectionPaid(ctx: CommandContext, notice: CollectionPaidNotice): Promise<string | null> {
    const [session] = await this.readModels.store.find<CheckoutSessionDoc>('checkout_sessions', {
      where: { _account: ctx.accountId, is_test: ctx.mode === 'test', collection: notice.collectionId },
      orderBy: { field: '_created', direction: 'desc' },
      limit: 1,
    });
    if (!session || session.payment_status === 'paid' || session.status !== 'complete' || session.mode === 'setup') return null;
    const sessionId = session.id;
    const { position } = await onSession(this.executor, ctx, sessionId, (now) => ({
      type: 'RecordPaymentOutcome',
      owner: ctx,
      sessionId,
      outcome: { status: 'paid', collection: notice.collectionId, subscription: notice.subscriptionId, payment_method: notice.paymentMethod, message: null, failure_code: null, decline_code: null, additional_data: null },
      now,
    }));
    return position;
  }
}
