import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import type { EventStore } from '#event-store/event-store.port.js';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import { EVENT_STORE } from '#platform/tokens.js';
import { DomainError } from '#shared/errors.js';
import { type InvoicingSettings, invoicingSettingsDecider, invoicingSettingsStream, settingsInForceAt } from '../domain/invoicing-settings.decider.js';
import { claimFiscalNumber } from './fiscal-numbers.js';

/** Numbers of the range already used by other documents passed over in one assignment before it gives up (recorded as an issuance failure, retried later). */
const MAX_SKIPPED_NUMBERS = 1_000;

/** An account's invoicing settings in a mode, read from its stream (never stale), and its document numbers. */
@Injectable()
export class InvoicingSettingsOf {
  /** Per settings stream: the revision read up to, and the position of its last `invoicing_settings.updated` (null: never updated). */
  private readonly lastUpdates = new LRUCache<string, { revision: number; position: string | null }>({ max: 10_000 });

  constructor(
    private readonly executor: AggregateExecutor,
    @Inject(EVENT_STORE) private readonly events: EventStore,
  ) {}

  async settings(owner: Pick<CommandContext, 'accountId' | 'mode'>): Promise<InvoicingSettings> {
    const { state } = await this.executor.load(invoicingSettingsDecider, invoicingSettingsStream(owner.accountId, owner.mode));
    return state.settings;
  }

  /**
   * The settings in force when the last `type` event of `streamId` (a collection's `collection.paid`)
   * was written: the current ones unless they were changed after it (then those of the last change at
   * or before it, `settingsInForceAt`). An event not in the store yet (staged in this request's unit of
   * work) comes after every change stored: the current settings. `streamId` is read only when the
   * settings were ever changed, and the settings' whole stream only when they changed after the event.
   */
  async settingsWhen(owner: Pick<CommandContext, 'accountId' | 'mode'>, streamId: string, type: string): Promise<InvoicingSettings> {
    const stream = invoicingSettingsStream(owner.accountId, owner.mode);
    const { state, revision } = await this.executor.load(invoicingSettingsDecider, stream);
    const lastUpdate = await this.lastUpdate(stream, revision);
    if (lastUpdate === null) return state.settings;
    const history = await this.events.readStream(streamId);
    const position = [...history].reverse().find((e) => e.type === type)?.position ?? null;
    if (position === null || position >= lastUpdate) return state.settings;
    return settingsInForceAt(await this.events.readStream(stream), position);
  }

  /** Where the stream's last settings change is in the global order (null: never changed); each of its events read once per process. */
  private async lastUpdate(stream: string, revision: number): Promise<string | null> {
    const known = this.lastUpdates.get(stream) ?? { revision: -1, position: null };
    if (known.revision >= revision) return known.position;
    const tail = await this.events.readStream(stream, known.revision + 1);
    let position = known.position;
    for (const e of tail) if (e.type === 'invoicing_settings.updated') position = e.position;
    this.lastUpdates.set(stream, { revision: tail.length ? tail[tail.length - 1].revision : known.revision, position });
    return position;
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
