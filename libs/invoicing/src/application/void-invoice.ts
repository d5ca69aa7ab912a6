import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext } from '../../../platform/src/command-context.js';
import type { CommandResult } from '../../../platform/src/write-then-read.js';
import { notFound } from '../../../shared/src/errors.js';
import { ownedBy } from '../../../shared/src/owner.js';
import { Invoicing } from './invoicing.js';
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
  ) {}

  async execute({ ctx: request, invoiceId }: VoidInvoiceCommand): Promise<CommandResult> {
    const state = await this.invoicing.invoice(invoiceId);
    if (!state || !ownedBy(state, request)) throw notFound('invoice', invoiceId);
    const ctx = await this.time.ctxFor(request, state.fields!.test_clock);
    const position = await this.invoicing.decide(ctx, invoiceId, (now) => ({ type: 'VoidInvoice', owner: ctx, invoiceId, now }));
    return { id: invoiceId, position };
  }
}
