import { Injectable } from '@nestjs/common';
import { AggregateExecutor } from '../../../platform/src/aggregate-executor.js';
import type { CommandContext } from '../../../platform/src/command-context.js';
import { type InvoicingSettings, invoicingSettingsDecider, invoicingSettingsStream } from '../domain/invoicing-settings.decider.js';

/** An account's invoicing settings in a mode, read from its stream (never stale), and its document numbers. */
@Injectable()
export class InvoicingSettingsOf {
  constructor(private readonly executor: AggregateExecutor) {}

  async settings(owner: Pick<CommandContext, 'accountId' | 'mode'>): Promise<InvoicingSettings> {
    const { state } = await this.executor.load(invoicingSettingsDecider, invoicingSettingsStream(owner.accountId, owner.mode));
    return state.settings;
  }

  /** The document's number: the next of the range, assigned once (a repeat returns the same). */
  async numberFor(ctx: CommandContext, document: string, kind: 'invoice' | 'credit_note'): Promise<string> {
    const { state } = await this.executor.execute(
      invoicingSettingsDecider,
      invoicingSettingsStream(ctx.accountId, ctx.mode),
      (now) => ({ type: 'AssignDocumentNumber' as const, accountId: ctx.accountId, mode: ctx.mode, document, kind, now }),
      ctx,
    );
    return state.assigned[document];
  }
}
