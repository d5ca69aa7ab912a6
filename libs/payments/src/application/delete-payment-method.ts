import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { customerDecider, customerStream } from '#customers/domain/customer.decider.js';
import { paymentMethodDecider, paymentMethodStream } from '../domain/payment-method.decider.js';

export class DeletePaymentMethodCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly paymentMethodId: string,
  ) {}
}

/**
 * Detaches a stored method: it can no longer be charged; if it was the customer's default, the
 * customer is left without one. Subscriptions that charged it fail at their next attempt until
 * given another method.
 */
@CommandHandler(DeletePaymentMethodCommand)
export class DeletePaymentMethodHandler implements ICommandHandler<DeletePaymentMethodCommand, CommandResult> {
  constructor(private readonly executor: AggregateExecutor) {}

  async execute({ ctx, paymentMethodId }: DeletePaymentMethodCommand): Promise<CommandResult> {
    const deleted = await this.executor.execute(
      paymentMethodDecider,
      paymentMethodStream(paymentMethodId),
      (now) => ({ type: 'DeletePaymentMethod' as const, owner: ctx, paymentMethodId, now }),
      ctx,
    );
    const customerId = deleted.state.fields!.customer;
    const cleared = await this.executor.execute(
      customerDecider,
      customerStream(customerId),
      (now) => ({ type: 'SetDefaultPaymentMethod' as const, owner: ctx, customerId, paymentMethodId: null, expectCurrent: paymentMethodId, now }),
      ctx,
    );
    return { id: paymentMethodId, position: cleared.position ?? deleted.position };
  }
}
