import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { newId } from '#shared/ids.js';
import { TestClockTime } from '#test-clocks/application/test-clock-time.js';
import { type CustomerCreateFields, customerDecider, customerStream } from '../domain/customer.decider.js';
import { CustomerEmailClaims } from './customer-email-claims.js';

export class CreateCustomerCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly fields: CustomerCreateFields,
  ) {}
}

/**
 * Claims the email, then writes the customer; a failed write gives the claim back. A customer on a
 * test clock (`test_clock`: an existing clock of the caller's, test mode only) is created at the
 * clock's frozen time; the email claim keeps real time.
 */
@CommandHandler(CreateCustomerCommand)
export class CreateCustomerHandler implements ICommandHandler<CreateCustomerCommand, CommandResult> {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly clocks: TestClockTime,
    private readonly claims: CustomerEmailClaims,
  ) {}

  async execute({ ctx, fields }: CreateCustomerCommand): Promise<CommandResult> {
    const customerId = newId('cus');
    const clockId = fields.test_clock ?? null;
    const command = (now: Date) => ({ type: 'CreateCustomer' as const, owner: ctx, customerId, fields, now });
    // Refuse invalid fields (and a clock with a live key) before claiming, so that a refused request leaves no claim behind.
    customerDecider.decide(command(this.executor.now(ctx)), customerDecider.initialState);
    if (clockId !== null) await this.clocks.attachable(ctx, clockId);
    const at = await this.clocks.contextFor(ctx, clockId);
    await this.claims.claim(ctx, fields.email, customerId);
    try {
      const { position } = await this.executor.execute(customerDecider, customerStream(customerId), command, at, { newStream: true });
      return { id: customerId, position };
    } catch (error) {
      await this.claims.release(ctx, fields.email, customerId).catch(() => undefined);
      throw error;
    }
  }
}
