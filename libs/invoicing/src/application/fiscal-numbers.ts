import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import { invoiceDecider, invoiceStream } from '../domain/invoice.decider.js';
import { type FiscalDocumentKind, type NumberHolderObservation, invoiceNumberDecider, invoiceNumberStream } from '../domain/invoice-number.decider.js';

/** What the holder's document stream says right now (an invoice: does it exist; a credit note is claimed only once it exists). */
async function observeHolder(executor: AggregateExecutor, kind: FiscalDocumentKind, document: string): Promise<NumberHolderObservation> {
  if (kind !== 'invoice') return { document, exists: true };
  const { state } = await executor.load(invoiceDecider, invoiceStream(document));
  return { document, exists: state.exists };
}

/**
 * Takes the fiscal number for `document` in the caller's account and mode: 409
 * `invoice_number_taken` naming the document that holds it. The claim stream is appended with its
 * expected revision, so of any number of racing requests, in one process or several, exactly one wins.
 */
export async function claimFiscalNumber(executor: AggregateExecutor, ctx: CommandContext, kind: FiscalDocumentKind, number: string, document: string): Promise<void> {
  const stream = invoiceNumberStream(ctx, kind, number);
  const { state } = await executor.load(invoiceNumberDecider, stream);
  const holder = state.holder !== null && state.holder !== document ? await observeHolder(executor, kind, state.holder) : null;
  await executor.execute(invoiceNumberDecider, stream, (now) => ({ type: 'ClaimFiscalNumber' as const, kind, number, document, holder, now }), ctx);
}

/** Gives the number up, if `document` holds it (an upload refused after its claim). */
export async function releaseFiscalNumber(executor: AggregateExecutor, ctx: CommandContext, kind: FiscalDocumentKind, number: string, document: string): Promise<void> {
  await executor.execute(invoiceNumberDecider, invoiceNumberStream(ctx, kind, number), (now) => ({ type: 'ReleaseFiscalNumber' as const, document, now }), ctx);
}
