import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { laterPosition } from '#event-store/positions.js';
import { notFound } from '#shared/errors.js';
import { ReadModels } from '#platform/read-models.js';
import type { CreditNoteDoc } from '../read-models/invoice.read-model.js';
import { type InvoiceCommand, invoiceDecider } from '../domain/invoice.decider.js';
import { Invoicing } from './invoicing.js';
import { InvoiceTime } from './invoice-time.js';
import { CreditNoteCollections } from './credit-note-collections.js';

export class VoidCreditNoteCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly creditNoteId: string,
  ) {}
}

/**
 * Voids a credit note: the collections it was applied to ask the amount again (refused, 409, when one
 * of them is closed — paid, settled by this credit, voided, refunded — and then nothing changes), and
 * the invoice gets the amount back on its balance.
 */
@CommandHandler(VoidCreditNoteCommand)
export class VoidCreditNoteHandler implements ICommandHandler<VoidCreditNoteCommand, CommandResult> {
  constructor(
    private readonly invoicing: Invoicing,
    private readonly time: InvoiceTime,
    private readonly readModels: ReadModels,
    private readonly collections: CreditNoteCollections,
  ) {}

  async execute({ ctx: request, creditNoteId }: VoidCreditNoteCommand): Promise<CommandResult> {
    // The credit note names its invoice (whose stream holds it); the read model finds it.
    const doc = await this.readModels.find<CreditNoteDoc>('credit_notes', creditNoteId, request);
    if (!doc) throw notFound('credit_note', creditNoteId);
    const state = await this.invoicing.invoice(doc.invoice);
    if (!state?.creditNotes[creditNoteId]) throw notFound('credit_note', creditNoteId);
    const ctx = await this.time.ctxFor(request, state.fields!.test_clock);
    const command = (now: Date): InvoiceCommand => ({ type: 'VoidCreditNote', owner: ctx, invoiceId: doc.invoice, creditNoteId, now });
    // The invoice's own rules first (a refund's credit note, a void invoice): nothing is written on a refusal.
    if (invoiceDecider.decide(command(new Date(0)), state).length === 0) return { id: creditNoteId, position: null };
    let position = await this.collections.reverse(ctx, state.fields!, creditNoteId);
    position = laterPosition(position, await this.invoicing.decide(ctx, doc.invoice, command));
    return { id: creditNoteId, position };
  }
}
