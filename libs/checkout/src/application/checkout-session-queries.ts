import { CommandHandler, ICommandHandler, IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import { type Owner, ReadModels } from '#platform/read-models.js';
import type { CommandResult } from '#platform/write-then-read.js';
import type { ListPage } from '#http/list.js';
import { TestClockTime } from '#test-clocks/application/test-clock-time.js';
import type { CheckoutSessionDoc } from '../read-models/checkout-session.read-model.js';
import { loadSession, onSession } from './checkout-session-command.js';

export class GetCheckoutSessionQuery {
  constructor(readonly owner: Owner, readonly id: string) {}
}
export class ListCheckoutSessionsQuery {
  constructor(readonly owner: Owner, readonly params: { limit?: number; starting_after?: string; status?: string; customer?: string; subscription?: string; payment_link?: string }) {}
}
/** `POST /v1/checkout_session/{id}/expire`: an open session expires now (Stripe's expire operation). */
export class ExpireCheckoutSessionCommand {
  constructor(readonly ctx: CommandContext, readonly sessionId: string) {}
}

@QueryHandler(GetCheckoutSessionQuery)
export class GetCheckoutSessionHandler implements IQueryHandler<GetCheckoutSessionQuery, CheckoutSessionDoc> {
  constructor(private readonly readModels: ReadModels) {}
  execute({ owner, id }: GetCheckoutSessionQuery): Promise<CheckoutSessionDoc> {
    return this.readModels.get<CheckoutSessionDoc>('checkout_sessions', 'checkout session', id, owner);
  }
}

/** Newest first; filters `status`, `customer`, `subscription`, `payment_link`. */
@QueryHandler(ListCheckoutSessionsQuery)
export class ListCheckoutSessionsHandler implements IQueryHandler<ListCheckoutSessionsQuery, ListPage<CheckoutSessionDoc>> {
  constructor(private readonly readModels: ReadModels) {}
  execute({ owner, params }: ListCheckoutSessionsQuery): Promise<ListPage<CheckoutSessionDoc>> {
    const where: Record<string, string> = {};
    for (const k of ['status', 'customer', 'subscription', 'payment_link'] as const) if (params[k]) where[k] = params[k]!;
    return this.readModels.list<CheckoutSessionDoc>('checkout_sessions', '/v1/checkout_session', owner, params, where);
  }
}

@CommandHandler(ExpireCheckoutSessionCommand)
export class ExpireCheckoutSessionHandler implements ICommandHandler<ExpireCheckoutSessionCommand, CommandResult> {
  constructor(private readonly executor: AggregateExecutor, private readonly clocks: TestClockTime) {}

  async execute({ ctx: request, sessionId }: ExpireCheckoutSessionCommand): Promise<CommandResult> {
    const { ctx } = await loadSession(this.executor, this.clocks, request, sessionId);
    const { position } = await onSession(this.executor, ctx, sessionId, (now) => ({ type: 'ExpireCheckoutSession', owner: ctx, sessionId, expected: null, now }));
    return { id: sessionId, position };
  }
}
