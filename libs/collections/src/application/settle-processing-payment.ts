import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { ownedBy } from '#shared/owner.js';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { DomainError, notFound } from '#shared/errors.js';
import { collectionDecider, collectionStream, refusedInState } from '../domain/collection.decider.js';
import { TestClockTime } from '#test-clocks/application/test-clock-time.js';
import { CollectionPayments } from './collection-payments.js';

export class SettleProcessingPaymentCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly collectionId: string,
    readonly result: 'succeeded' | 'failed',
    /**
     * `simulated_gateway`: the simulator's own bank page (PSE redirect) — any mode, and only for the
     * named pending charge; `test_helper`: the API's test helpers (test mode only).
     */
    readonly origin: { by: 'test_helper' } | { by: 'simulated_gateway'; charge: string } = { by: 'test_helper' },
  ) {}
}

/**
 * Test mode only (or the simulator's bank page): plays the customer's side of a `processing` attempt (PSE redirect completed, cash
 * voucher paid, or abandoned): the pending charge is recorded as succeeded or failed exactly as a
 * gateway notification would record it.
 */
@CommandHandler(SettleProcessingPaymentCommand)
export class SettleProcessingPaymentHandler implements ICommandHandler<SettleProcessingPaymentCommand, CommandResult> {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly payments: CollectionPayments,
    private readonly clocks: TestClockTime,
  ) {}

  async execute({ ctx: request, collectionId, result, origin }: SettleProcessingPaymentCommand): Promise<CommandResult> {
    if (origin.by === 'test_helper' && request.mode !== 'test') throw new DomainError('test_mode_only', 'Test helpers are only available with a test key', null, 403);
    const { state } = await this.executor.load(collectionDecider, collectionStream(collectionId));
    if (!ownedBy(state, request)) throw notFound('collection', collectionId);
    // Recorded at the collection's test clock's time, when it lives on one.
    const ctx = await this.clocks.contextFor(request, state.fields!.test_clock);
    const pending = state.transactions.find((t) => t.status === 'pending');
    const charge = pending?.charges.find((c) => c.status === 'pending');
    if (!pending || !charge || (origin.by === 'simulated_gateway' && charge.id !== origin.charge)) throw refusedInState(result === 'succeeded' ? 'settle' : 'fail', collectionId, state.fields!.status);
    const outcome =
      result === 'succeeded'
        ? { status: 'succeeded' as const, gateway_reference: `sim_settled_${charge.id}` }
        : {
            status: 'failed' as const,
            gateway_reference: null,
            failure_code: 'payment_not_completed',
            failure_message: 'The customer did not complete the payment.',
            decline_code: null,
            retryable: false,
          };
    const recorded = await this.payments.record(ctx, collectionId, charge.id, outcome);
    return { id: collectionId, position: recorded.position };
  }
}
