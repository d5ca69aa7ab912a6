import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext } from '../../../platform/src/command-context.js';
import type { CommandResult } from '../../../platform/src/write-then-read.js';
import { laterPosition } from '../../../event-store/src/positions.js';
import { newId } from '../../../shared/src/ids.js';
import { notFound } from '../../../shared/src/errors.js';
import { ownedBy } from '../../../shared/src/owner.js';
import { Invoicing } from './invoicing.js';
import { InvoiceTime } from './invoice-time.js';

export class CreateCreditNoteCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly invoiceId: string,
    readonly body: { amount: string; reason: string },
  ) {}
}

/** A credit note against an invoice (never below a zero balance), then issued through the provider (a failure is retried on the invoice's deadline). */
@CommandHandler(CreateCreditNoteCommand)
export class CreateCreditNoteHandler implements ICommandHandler<CreateCreditNoteCommand, CommandResult> {
  constructor(
    private readonly invoicing: Invoicing,
    private readonly time: InvoiceTime,
  ) {}

  async execute({ ctx: request, invoiceId, body }: CreateCreditNoteCommand): Promise<CommandResult> {
    const state = await this.invoicing.invoice(invoiceId);
    if (!state || !ownedBy(state, request)) throw notFound('invoice', invoiceId);
    const ctx = await this.time.ctxFor(request, state.fields!.test_clock);
    const creditNoteId = newId('cn');
    let position = await this.invoicing.decide(ctx, invoiceId, (now) => ({
      type: 'CreateCreditNote',
      owner: ctx,
      invoiceId,
      creditNoteId,
      amount: body.amount,
      reason: body.reason,
      refund: null,
      now,
    }));
    position = laterPosition(position, await this.invoicing.issue(ctx, invoiceId));
    return { id: creditNoteId, position };
  }
}
