import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { type CustomerChanges, customerDecider, customerStream, emailKey } from '../domain/customer.decider.js';
import { CustomerEmailClaims } from './customer-email-claims.js';

export class UpdateCustomerCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly customerId: string,
    readonly changes: CustomerChanges,
  ) {}
}

/**
 * Partial update. A new email (other than by letter case) is claimed first (409 when another
 * customer holds it), then the customer is updated, then the old email is released.
 */
@CommandHandler(UpdateCustomerCommand)
export class UpdateCustomerHandler implements ICommandHandler<UpdateCustomerCommand, CommandResult> {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly claims: CustomerEmailClaims,
  ) {}

  async execute({ ctx, customerId, changes }: UpdateCustomerCommand): Promise<CommandResult> {
    const stream = customerStream(customerId);
    const command = (now: Date) => ({ type: 'UpdateCustomer' as const, owner: ctx, customerId, changes, now });
    const { state } = await this.executor.load(customerDecider, stream);
    // Not found, another tenant's, or invalid: refused before any claim is taken.
    customerDecider.decide(command(this.executor.now(ctx)), state);
    const before = state.fields!.email;
    const after = changes.email;
    const moves = after !== undefined && emailKey(after) !== emailKey(before);
    if (moves) await this.claims.claim(ctx, after, customerId);
    let position: string | null;
    try {
      ({ position } = await this.executor.execute(customerDecider, stream, command, ctx));
    } catch (error) {
      if (moves) await this.claims.release(ctx, after, customerId).catch(() => undefined);
      throw error;
    }
    // Best effort: a claim left behind by a crash here is an orphan the next claimant may take.
    if (moves) await this.claims.release(ctx, before, customerId).catch(() => undefined);
    return { id: customerId, position };
  }
}
