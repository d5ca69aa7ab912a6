import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { newId } from '#shared/ids.js';
import { TestClockTime } from '#test-clocks/application/test-clock-time.js';
import { type CustomerCreateFields, customerDecider, customerStream } from '../domain/customer.decider.js';
import { type HolderObservation, customerEmailDecider, customerEmailStream } from '../domain/customer-email.decider.js';

export class CreateCustomerCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly fields: CustomerCreateFields,
  ) {}
}

/** What the claimant's customer stream says right now: does it exist, and with which email. */
async function observeHolder(executor: AggregateExecutor, customerId: string): Promise<HolderObservation> {
  const { state } = await executor.load(customerDecider, customerStream(customerId));
  return { customerId, exists: state.exists, email: state.fields?.email ?? null };
}

/**
 * Takes the email for `customerId` in the caller's account and mode (409 `resource_already_exists`
 * when another customer holds it). The claim stream is appended with its expected revision, so of
 * any number of racing requests, in one process or several, exactly one wins.
 */
export async function claimCustomerEmail(executor: AggregateExecutor, ctx: CommandContext, email: string, customerId: string): Promise<void> {
  const stream = customerEmailStream(ctx, email);
  const { state } = await executor.load(customerEmailDecider, stream);
  const holder = state.holder !== null && state.holder !== customerId ? await observeHolder(executor, state.holder) : null;
  await executor.execute(
    customerEmailDecider,
    stream,
    (now) => ({ type: 'ClaimCustomerEmail' as const, customerId, email, holder, now }),
    ctx,
  );
}

/** Gives the email up, if `customerId` holds it. */
export async function releaseCustomerEmail(executor: AggregateExecutor, ctx: CommandContext, email: string, customerId: string): Promise<void> {
  await executor.execute(
    customerEmailDecider,
    customerEmailStream(ctx, email),
    (now) => ({ type: 'ReleaseCustomerEmail' as const, customerId, now }),
    ctx,
  );
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
  ) {}

  async execute({ ctx, fields }: CreateCustomerCommand): Promise<CommandResult> {
    const customerId = newId('cus');
    const clockId = fields.test_clock ?? null;
    const command = (now: Date) => ({ type: 'CreateCustomer' as const, owner: ctx, customerId, fields, now });
    // Refuse invalid fields (and a clock with a live key) before claiming, so that a refused request leaves no claim behind.
    customerDecider.decide(command(this.executor.now(ctx)), customerDecider.initialState);
    if (clockId !== null) await this.clocks.attachable(ctx, clockId);
    const at = await this.clocks.contextFor(ctx, clockId);
    await claimCustomerEmail(this.executor, ctx, fields.email, customerId);
    try {
      const { position } = await this.executor.execute(customerDecider, customerStream(customerId), command, at, { newStream: true });
      return { id: customerId, position };
    } catch (error) {
      await releaseCustomerEmail(this.executor, ctx, fields.email, customerId).catch(() => undefined);
      throw error;
    }
  }
}
