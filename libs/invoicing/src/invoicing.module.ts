import { Inject, Injectable, Module, type OnApplicationBootstrap, type OnModuleDestroy, type OnModuleInit, Optional } from '@nestjs/common';
import { LeaseManager } from '#platform/leases.js';
import { Logger } from '@nestjs/common';
import type { Config } from '#platform/config.js';
import { CONFIG, EVENT_STORE, READ_STORE } from '#platform/tokens.js';
import type { EventStore } from '#event-store/event-store.port.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { InvoicingFollower } from './application/invoicing-follower.js';
import { CollectionsModule } from '#collections/collections.module.js';
import { PaymentFollowUps } from '#collections/application/payment-follow-ups.js';
import { FiscalInvoices } from '#collections/application/fiscal-invoices.js';
import { SchedulingModule } from '#scheduling/scheduling.module.js';
import { Scheduler } from '#scheduling/scheduler.js';
import type { CommandContext } from '#platform/command-context.js';
import { CreateCreditNoteHandler } from './application/create-credit-note.js';
import { GetCreditNoteHandler } from './application/get-credit-note.js';
import { GetInvoiceHandler } from './application/get-invoice.js';
import { GetInvoicingSettingsHandler } from './application/get-invoicing-settings.js';
import { InvoiceTime } from './application/invoice-time.js';
import { CreditNoteCollections } from './application/credit-note-collections.js';
import { Invoicing } from './application/invoicing.js';
import { InvoicingSettingsOf } from './application/invoicing-settings-of.js';
import { ListCreditNotesHandler } from './application/list-credit-notes.js';
import { ListInvoicePaymentsHandler } from './application/list-invoice-payments.js';
import { ListInvoicesHandler } from './application/list-invoices.js';
import { UpdateInvoicingSettingsHandler } from './application/update-invoicing-settings.js';
import { VoidCreditNoteHandler } from './application/void-credit-note.js';
import { VoidInvoiceHandler } from './application/void-invoice.js';
import { PayInvoiceHandler } from './application/pay-invoice.js';
import { UploadInvoiceHandler } from './application/upload-invoice.js';
import { InvoicesController, InvoicingProviderTestHelperController } from './http/invoices.controller.js';
import { FiscalDocumentsController } from './http/fiscal-documents.controller.js';
import { INVOICING_PROVIDERS, type InvoicingProvider } from './provider/invoicing-provider.port.js';
import { SimulatedInvoicingProvider } from './provider/simulated-invoicing-provider.js';

/** Starts the crash-safe invoicing follower where projectors run (ROLE all/worker), unless INVOICING_FOLLOWER=off. */
@Injectable()
export class InvoicingFollowerLifecycle implements OnApplicationBootstrap, OnModuleDestroy {
  constructor(
    @Inject(CONFIG) private readonly config: Config,
    private readonly follower: InvoicingFollower,
    @Optional() private readonly leases?: LeaseManager,
  ) {
    // Run by the worker holding the `invoicing` lease (never taken with INVOICING_FOLLOWER=off; libs/platform/src/leases.ts).
    if (config.role !== 'api' && config.invoicing.follower) leases?.register('invoicing', { start: (lease) => follower.start(lease), stop: () => follower.stop() });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.leases && this.config.role !== 'api' && this.config.invoicing.follower) await this.follower.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.follower.stop();
  }
}

/**
 * Invoicing: fiscal invoices and credit notes through the invoicing-provider port. It listens to
 * collections (created, paid, voided, refunded) and registers its deadline source (issuance retries)
 * with the scheduler; nothing depends on it.
 */
@Module({
  imports: [CollectionsModule, SchedulingModule],
  controllers: [InvoicesController, InvoicingProviderTestHelperController, FiscalDocumentsController],
  providers: [
    { provide: SimulatedInvoicingProvider, inject: [CONFIG], useFactory: (config: Config) => new SimulatedInvoicingProvider(`${config.checkoutUrl}/fiscal`) },
    {
      provide: INVOICING_PROVIDERS,
      inject: [SimulatedInvoicingProvider],
      useFactory: (simulator: SimulatedInvoicingProvider) => new Map<string, InvoicingProvider>([[simulator.name, simulator]]),
    },
    InvoicingSettingsOf,
    Invoicing,
    CreditNoteCollections,
    InvoiceTime,
    {
      provide: InvoicingFollower,
      inject: [EVENT_STORE, READ_STORE, Invoicing, CONFIG],
      useFactory: (events: EventStore, store: ReadStore, invoicing: Invoicing, config: Config) =>
        new InvoicingFollower(
          events,
          store,
          { name: 'invoicing:collections', handle: async (type, ctx, id, data) => void (await invoicing.followCollectionEvent(type, ctx, id, data)) },
          { pollMs: config.invoicing.pollMs, graceMs: config.invoicing.graceMs },
        ),
    },
    InvoicingFollowerLifecycle,
    GetInvoiceHandler,
    ListInvoicesHandler,
    ListInvoicePaymentsHandler,
    VoidInvoiceHandler,
    UploadInvoiceHandler,
    PayInvoiceHandler,
    CreateCreditNoteHandler,
    GetCreditNoteHandler,
    ListCreditNotesHandler,
    VoidCreditNoteHandler,
    GetInvoicingSettingsHandler,
    UpdateInvoicingSettingsHandler,
  ],
  exports: [Invoicing, InvoicingSettingsOf, InvoicingFollower],
})
export class InvoicingModule implements OnModuleInit {
  private readonly logger = new Logger('invoicing');

  constructor(
    private readonly invoicing: Invoicing,
    private readonly followUps: PaymentFollowUps,
    private readonly scheduler: Scheduler,
    private readonly fiscal: FiscalInvoices,
  ) {}

  onModuleInit(): void {
    // Invoicing never fails a payment or a collection: an error here is logged; the invoice is made
    // again by the next event of the collection (a paid collection's follow-ups re-run on sync).
    const safe =
      (what: string, run: (ctx: CommandContext, id: string) => Promise<string | null>) =>
      async (ctx: CommandContext, id: string): Promise<string | null> => {
        try {
          return await run(ctx, id);
        } catch (error) {
          this.logger.error({ msg: `invoicing after collection ${what} failed`, collection: id, err: String(error) });
          return null;
        }
      };
    this.followUps.register({ collectionPaid: (ctx, notice) => safe('paid', (c, id) => this.invoicing.collectionPaid(c, id))(ctx, notice.collectionId) });
    this.followUps.registerLifecycle({
      collectionCreated: safe('created', (ctx, id) => this.invoicing.collectionCreated(ctx, id)),
      collectionVoided: safe('voided', (ctx, id) => this.invoicing.collectionVoided(ctx, id)),
      collectionRefunded: (ctx, id, refund) => safe('refunded', (c, i) => this.invoicing.collectionRefunded(c, i, refund))(ctx, id),
      registeredPaymentApplied: (ctx, id, receipt, amount) => safe('registered payment', (c, i) => this.invoicing.registeredPaymentApplied(c, i, receipt, amount))(ctx, id),
    });
    // Collections weigh register_invoices_payment, update/total and partial_payment against the real invoice.
    this.fiscal.register({
      balanceOf: async (invoiceId) => {
        const f = (await this.invoicing.invoice(invoiceId))?.fields;
        if (!f) return null;
        const { number, status, currency, total, total_paid, amount_credited, amount_due, due_date } = f;
        return { id: invoiceId, number, status, currency, total, total_paid, amount_credited, amount_due, due_date };
      },
    });
    this.scheduler.register({ name: 'invoice', collection: 'invoices', run: (ctx, doc) => this.invoicing.issue(ctx, doc.id) });
  }
}
