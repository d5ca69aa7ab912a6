import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import { READ_STORE } from '#platform/tokens.js';
import type { ReadStore, Scalar } from '#read-store/read-store.port.js';
import { Scheduler } from '#scheduling/scheduler.js';
import type { DeadlineDoc } from '#scheduling/deadline-source.js';
import { customerDecider, customerStream } from '../domain/customer.decider.js';
import { FISCAL_BUYERS, FISCAL_BUYERS_SPEC, FISCAL_PURGE, type FiscalBuyerDoc, fiscalPurgeFields } from './fiscal-retention.js';

const PAGE = 500;

/**
 * Ends what tax law made the merchant keep (docs/personal-data.md, "What is kept for tax law"): a
 * kept buyer identification (`fiscal_buyers`) is deleted at its `kept_until`, by the scheduler — a
 * deadline source over the collection, so real time and test clocks both honour it, and one missed
 * while the service was down is simply due at the next start. From then on the fiscal documents'
 * pages show the placeholders for the buyer, as everything else of the erased customer does.
 */
@Injectable()
export class FiscalBuyerPurge implements OnModuleInit, OnApplicationBootstrap {
  private readonly logger = new Logger('personal-data');

  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly executor: AggregateExecutor,
    private readonly scheduler: Scheduler,
  ) {}

  onModuleInit(): void {
    this.scheduler.register({ name: 'fiscal_buyer', collection: FISCAL_BUYERS, run: (ctx, doc) => this.purge(ctx, doc) });
  }

  /** Documents kept before the purge existed get their deadline fields once (every start; a document that has them is left alone). */
  async onApplicationBootstrap(): Promise<void> {
    try {
      const n = await this.backfill();
      if (n > 0) this.logger.log(`${n} kept buyer identifications given their purge deadline (kept_until)`);
    } catch (error) {
      this.logger.error(`the kept buyer identifications could not be given their purge deadline (tried again at the next start): ${(error as Error).message}`);
    }
  }

  async backfill(): Promise<number> {
    await this.reads.ensureCollections([FISCAL_BUYERS_SPEC]);
    let done = 0;
    let after: { value: Scalar; id: string } | undefined;
    for (;;) {
      const page = await this.reads.find<FiscalBuyerDoc>(FISCAL_BUYERS, { orderBy: { field: 'id', direction: 'asc' }, after, limit: PAGE });
      for (const doc of page) {
        if (doc._due_kind === FISCAL_PURGE && doc._due_at === doc.kept_until && doc._account) continue;
        const clock = (await this.executor.load(customerDecider, customerStream(doc.id))).state.fields?.test_clock ?? null;
        // Compare-and-set on what was read: a document changed meanwhile (a re-wrap) is left for the next start.
        const expected: Record<string, Scalar> = { kept_until: doc.kept_until, _due_at: doc._due_at ?? null };
        if (await this.reads.swap(FISCAL_BUYERS, doc.id, expected, { ...doc, ...fiscalPurgeFields(doc.account, clock, doc.kept_until) })) done++;
      }
      if (page.length < PAGE) return done;
      after = { value: page[page.length - 1].id, id: page[page.length - 1].id };
    }
  }

  /**
   * The deadline: the kept buyer identification is deleted once `kept_until` has come (at the
   * deadline's own time on a test clock). No event is written (the document is state beside the log,
   * never in it), so it answers null, as a deadline that appended nothing does.
   */
  async purge(ctx: CommandContext, due: DeadlineDoc): Promise<string | null> {
    const doc = await this.reads.get<FiscalBuyerDoc>(FISCAL_BUYERS, due.id);
    if (!doc || doc._due_kind !== FISCAL_PURGE || this.executor.now(ctx).getTime() < Date.parse(doc.kept_until)) return null;
    await this.reads.commit([{ collection: FISCAL_BUYERS, id: doc.id, doc: null }]);
    this.logger.log({ msg: 'kept buyer identification purged at kept_until', customer: doc.id, account: doc.account, kept_until: doc.kept_until });
    return null;
  }
}
