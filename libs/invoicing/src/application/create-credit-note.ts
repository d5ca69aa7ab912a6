import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { laterPosition } from '#event-store/positions.js';
import { newId } from '#shared/ids.js';
import { notFound } from '#shared/errors.js';
import { ownedBy } from '#shared/owner.js';
import { type InvoiceCommand, invoiceDecider } from '../domain/invoice.decider.js';
import { Invoicing } from './invoicing.js';
import { InvoiceTime } from './invoice-time.js';
import { CreditNoteCollections } from './credit-note-collections.js';

export class CreateCreditNoteCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly invoiceId: string,
    readonly body: { amount: string; reason: string },
  ) {}
}

/**
 * A credit note against an invoice (never below a zero balance): first taken off what the invoice's
 * open collections ask (`CreditNoteCollections.credit`: the collection is where it is serialised with
 * payments), then recorded on the invoice and issued through the provider (a failure is retried on the
 * invoice's deadline). A collection the credit settled tells its subscription, as a payment would.
 */
@CommandHandler(CreateCreditNoteCommand)
export class CreateCreditNoteHandler implements ICommandHandler<CreateCreditNoteCommand, CommandResult> {
  constructor(
    private readonly invoicing: Invoicing,
    private readonly time: InvoiceTime,
    private readonly collections: CreditNoteCollections,
  ) {}

  async execute({ ctx: request, invoiceId, body }: CreateCreditNoteCommand): Promise<CommandResult> {
    const state = await this.invoicing.invoice(invoiceId);
    if (!state || !ownedBy(state, request)) throw notFound('invoice', invoiceId);
    const ctx = await this.time.ctxFor(request, state.fields!.test_clock);
    const creditNoteId = newId('cn');
    const command = (amount: string) => (now: Date): InvoiceCommand => ({ type: 'CreateCreditNote', owner: ctx, invoiceId, creditNoteId, amount, reason: body.reason, refund: null, now });
    // The invoice's own rules (reason, amount, at most its amount due, not void) first: nothing is written on a refusal.
    invoiceDecider.decide(command(body.amount)(new Date(0)), state);
    let position: string | null = null;
    let amount = body.amount;
    let settled: string[] = [];
    if (this.collections.hasCollections(state.fields!)) {
      const credited = await this.collections.credit(ctx, invoiceId, state.fields!, creditNoteId, body.amount);
      ({ placed: amount, settled, position } = credited);
    }
    try {
      position = laterPosition(position, await this.invoicing.decide(ctx, invoiceId, command(amount)));
    } catch (error) {
      // Refused meanwhile (voided, paid by a payment not yet recorded when this began): the collections ask again.
      await this.collections.undo(ctx, state.fields!, creditNoteId);
      throw error;
    }
    position = laterPosition(position, await this.collections.afterSettled(ctx, settled));
    position = laterPosition(position, await this.invoicing.issue(ctx, invoiceId));
    return { id: creditNoteId, position };
  }
}
