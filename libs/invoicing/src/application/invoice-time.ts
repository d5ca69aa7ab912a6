import { Injectable } from '@nestjs/common';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import { TestClockTime } from '#test-clocks/application/test-clock-time.js';
import { isPastDue } from '#shared/dates.js';
import type { InvoiceDoc } from '../read-models/invoice.read-model.js';

/** An invoice as the API shows it: its read model plus `overdue` — a balance due past its due date, at its test clock's time when it lives on one. */
@Injectable()
export class InvoiceTime {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly clocks: TestClockTime,
  ) {}

  async ctxFor(ctx: CommandContext, clock: string | null): Promise<CommandContext> {
    try {
      return await this.clocks.contextFor(ctx, clock);
    } catch {
      return ctx; // a deleted clock: real time
    }
  }

  async present(ctx: CommandContext, docs: InvoiceDoc[]): Promise<Array<InvoiceDoc & { overdue: boolean }>> {
    const nows = new Map<string, Date>();
    const out = [];
    for (const doc of docs) {
      const key = doc.test_clock ?? '';
      if (!nows.has(key)) nows.set(key, this.executor.now(await this.ctxFor(ctx, doc.test_clock)));
      const open = doc.status === 'open' || doc.status === 'partially_paid';
      out.push({ ...doc, overdue: open && doc.due_date !== null && isPastDue(doc.due_date, nows.get(key)!) });
    }
    return out;
  }
}
