import { Injectable } from '@nestjs/common';
import { AggregateExecutor } from '../../../platform/src/aggregate-executor.js';
import type { CommandContext } from '../../../platform/src/command-context.js';
import { DomainError } from '../../../shared/src/errors.js';
import { type InvoicingSettings, invoicingSettingsDecider, invoicingSettingsStream } from '../domain/invoicing-settings.decider.js';
import { claimFiscalNumber } from './fiscal-numbers.js';

/** Numbers of the range already used by other documents passed over in one assignment before it gives up (recorded as an issuance failure, retried later). */
const MAX_SKIPPED_NUMBERS = 1_000;

/** An account's invoicing settings in a mode, read from its stream (never stale), and its document numbers. */
@Injectable()
export class InvoicingSettingsOf {
  constructor(private readonly executor: AggregateExecutor) {}

  async settings(owner: Pick<CommandContext, 'accountId' | 'mode'>): Promise<InvoicingSettings> {
    const { state } = await this.executor.load(invoicingSettingsDecider, invoicingSettingsStream(owner.accountId, owner.mode));
    return state.settings;
  }

  /**
   * The document's number: the next of the range, assigned once (a repeat returns the same) and
   * claimed for the document (`claimFiscalNumber`): a number another document already has (an
   * uploaded invoice numbered in the range, a range set back) is passed over for the next.
   */
  async numberFor(ctx: CommandContext, document: string, kind: 'invoice' | 'credit_note'): Promise<string> {
    let replacing: string | undefined;
    for (let skipped = 0; ; skipped++) {
      const { state } = await this.executor.execute(
        invoicingSettingsDecider,
        invoicingSettingsStream(ctx.accountId, ctx.mode),
        (now) => ({ type: 'AssignDocumentNumber' as const, accountId: ctx.accountId, mode: ctx.mode, document, kind, replacing, now }),
        ctx,
      );
      const number = state.assigned[document];
      try {
        await claimFiscalNumber(this.executor, ctx, kind, number, document);
        return number;
      } catch (error) {
        if (!(error instanceof DomainError) || error.code !== 'invoice_number_taken' || skipped >= MAX_SKIPPED_NUMBERS) throw error;
        replacing = number;
      }
    }
  }
}
