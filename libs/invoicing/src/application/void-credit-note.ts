import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext } from '../../../platform/src/command-context.js';
import type { CommandResult } from '../../../platform/src/write-then-read.js';
import { notFound } from '../../../shared/src/errors.js';
import { ReadModels } from '../../../platform/src/read-models.js';
import type { CreditNoteDoc } from '../../../../projections/invoices.projection.js';
import { Invoicing } from './invoicing.js';
import { InvoiceTime } from './invoice-time.js';

export class VoidCreditNoteCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly creditNoteId: string,
  ) {}
}

/** Voids a credit note: the invoice gets the amount back on its balance. */
@CommandHandler(VoidCreditNoteCommand)
export class VoidCreditNoteHandler implements ICommandHandler<VoidCreditNoteCommand, CommandResult> {
  constructor(
    private readonly invoicing: Invoicing,
    private readonly time: InvoiceTime,
    private readonly readModels: ReadModels,
  ) {}

  async execute({ ctx: request, creditNoteId }: VoidCreditNoteCommand): Promise<CommandResult> {
    // The credit note names its invoice (whose stream holds it); the read model finds it.
    const doc = await this.readModels.find<CreditNoteDoc>('credit_notes', creditNoteId, request);
    if (!doc) throw notFound('credit_note', creditNoteId);
    const state = await this.invoicing.invoice(doc.invoice);
    if (!state?.creditNotes[creditNoteId]) throw notFound('credit_note', creditNoteId);
    const ctx = await this.time.ctxFor(request, state.fields!.test_clock);
    const position = await this.invoicing.decide(ctx, doc.invoice, (now) => ({ type: 'VoidCreditNote', owner: ctx, invoiceId: doc.invoice, creditNoteId, now }));
    return { id: creditNoteId, position };
  }
}
