import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { invalidParam } from '#shared/errors.js';
import { customerDecider, customerStream } from '#customers/domain/customer.decider.js';
import { type PaymentMethodChanges, paymentMethodDecider, paymentMethodStream } from '../domain/payment-method.decider.js';

export class UpdatePaymentMethodCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly paymentMethodId: string,
    readonly body: PaymentMethodChanges & { default?: boolean },
  ) {}
}

/** Card expiry and meta_data; `default: true` makes it the customer's default method. */
@CommandHandler(UpdatePaymentMethodCommand)
export class UpdatePaymentMethodHandler implements ICommandHandler<UpdatePaymentMethodCommand, CommandResult> {
  constructor(private readonly executor: AggregateExecutor) {}

  async execute({ ctx, paymentMethodId, body }: UpdatePaymentMethodCommand): Promise<CommandResult> {
    const { default: makeDefault, ...changes } = body;
    // Checked before anything is written: a refused request changes nothing.
    if (makeDefault === false) throw invalidParam('default', 'default can only be set to true (make another method the default instead)');
    const updated = await this.executor.execute(
      paymentMethodDecider,
      paymentMethodStream(paymentMethodId),
      (now) => ({ type: 'UpdatePaymentMethod' as const, owner: ctx, paymentMethodId, changes, now }),
      ctx,
    );
    if (!makeDefault) return { id: paymentMethodId, position: updated.position };
    const customerId = updated.state.fields!.customer;
    const set = await this.executor.execute(
      customerDecider,
      customerStream(customerId),
      (now) => ({ type: 'SetDefaultPaymentMethod' as const, owner: ctx, customerId, paymentMethodId, now }),
      ctx,
    );
    return { id: paymentMethodId, position: set.position ?? updated.position };
  }
}
