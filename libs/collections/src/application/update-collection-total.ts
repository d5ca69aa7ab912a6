import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { ownedBy } from '#shared/owner.js';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { TestClockTime } from '#test-clocks/application/test-clock-time.js';
import { notFound } from '#shared/errors.js';
import { collectionDecider, collectionStream } from '../domain/collection.decider.js';
import { invoiceOf } from './collection-invoice.js';
import { FiscalInvoices } from './fiscal-invoices.js';

export class UpdateCollectionTotalCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly collectionId: string,
    readonly total: string,
  ) {}
}

/**
 * `POST /v1/collections/{id}/update/total` (deprecated): sets the total of a collection without items
 * (a partial payment's balance) within its invoice — the chain of collections linked by `balance_of`
 * (see `invoiceOf`). The invoice's figures are read from those collections' streams just before the
 * decision — or, when the chain has a fiscal invoice, from the invoice's stream (its total, total paid
 * and credit notes; the chain still gives the other collections' totals); the collection itself is written with its stream's expected revision.
 */
@CommandHandler(UpdateCollectionTotalCommand)
export class UpdateCollectionTotalHandler implements ICommandHandler<UpdateCollectionTotalCommand, CommandResult> {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly clocks: TestClockTime,
    private readonly fiscal: FiscalInvoices,
  ) {}

  async execute({ ctx: request, collectionId, total }: UpdateCollectionTotalCommand): Promise<CommandResult> {
    const { state } = await this.executor.load(collectionDecider, collectionStream(collectionId));
    if (!ownedBy(state, request)) throw notFound('collection', collectionId);
    const ctx = await this.clocks.contextFor(request, state.fields!.test_clock);
    const chain = await invoiceOf(this.executor, collectionId, state.fields!);
    // With a fiscal invoice (the chain's first collection's), its real figures: total, paid, credited.
    const fiscal = await this.fiscal.balanceOf(chain.fiscal_invoice);
    const invoice = fiscal ? { ...chain, id: fiscal.id, total: fiscal.total, total_paid: fiscal.total_paid, credited: fiscal.amount_credited } : chain;
    const { position } = await this.executor.execute(
      collectionDecider,
      collectionStream(collectionId),
      (now) => ({ type: 'UpdateCollectionTotal' as const, owner: ctx, collectionId, total, invoice, now }),
      ctx,
    );
    return { id: collectionId, position };
  }
}
