import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { notFound } from '#shared/errors.js';
import { ownedBy } from '#shared/owner.js';
import { Invoicing } from './invoicing.js';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import { laterPosition } from '#event-store/positions.js';
import { collectionDecider, collectionStream } from '#collections/domain/collection.decider.js';
import { InvoiceTime } from './invoice-time.js';

export class VoidInvoiceCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly invoiceId: string,
  ) {}
}

/** Voids an invoice nothing of which is paid (409 otherwise: issue a credit note). */
@CommandHandler(VoidInvoiceCommand)
export class VoidInvoiceHandler implements ICommandHandler<VoidInvoiceCommand, CommandResult> {
  constructor(
    private readonly invoicing: Invoicing,
    private readonly time: InvoiceTime,
    private readonly executor: AggregateExecutor,
  ) {}

  async execute({ ctx: request, invoiceId }: VoidInvoiceCommand): Promise<CommandResult> {
    const state = await this.invoicing.invoice(invoiceId);
    if (!state || !ownedBy(state, request)) throw notFound('invoice', invoiceId);
    const ctx = await this.time.ctxFor(request, state.fields!.test_clock);
    let position = await this.invoicing.decide(ctx, invoiceId, (now) => ({ type: 'VoidInvoice', owner: ctx, invoiceId, now }));
    // An uploaded invoice's collection exists only to collect it: it is voided too (if still open).
    const f = state.fields!;
    if (f.source === 'upload' && f.collection) {
      const collectionId = f.collection;
      const col = (await this.executor.load(collectionDecider, collectionStream(collectionId))).state.fields;
      if (col && ['pending', 'past_due', 'uncollectible'].includes(col.status) && !col.collecting) {
        const voided = await this.executor.execute(collectionDecider, collectionStream(collectionId), (now) => ({ type: 'VoidCollection' as const, owner: ctx, collectionId, now }), ctx);
        position = laterPosition(position, voided.position);
      }
    }
    return { id: invoiceId, position };
  }
}
