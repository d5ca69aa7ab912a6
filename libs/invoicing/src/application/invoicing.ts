import { Inject, Injectable, Logger } from '@nestjs/common';
import { laterPosition } from '#event-store/positions.js';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import { DomainError } from '#shared/errors.js';
import { newId } from '#shared/ids.js';
import { Money, currency as currencyOf, formatAmount } from '#shared/money.js';
import { customerDecider, customerStream } from '#customers/domain/customer.decider.js';
import { type CollectionFields, collectionDecider, collectionStream } from '#collections/domain/collection.decider.js';
import { subscriptionDecider, subscriptionStream } from '#subscriptions/domain/subscription.decider.js';
import type { InvoiceLineInput, RetentionRates } from '../domain/invoice-amounts.js';
import { type InvoiceCommand, type InvoiceInput, type InvoiceState, NO_INVOICE_SETTINGS, invoiceDecider, invoiceStream } from '../domain/invoice.decider.js';
import type { InvoicingSettings } from '../domain/invoicing-settings.decider.js';
import { INVOICING_PROVIDERS, type InvoicingProvider } from '../provider/invoicing-provider.port.js';
import { InvoicingSettingsOf } from './invoicing-settings-of.js';
import { InvoiceTime } from './invoice-time.js';

export type InvoicingTiming = 'create' | 'after' | 'none';

/**
 * The invoicing application service: when a collection gets its fiscal invoice, issuing it through
 * the account's provider (numbered from the account's range, the document id as idempotency key),
 * recording a provider failure for the durable retry, recording payments, voids and refunds' credit
 * notes. Other contexts call it: collections through their lifecycle listeners, the scheduler for
 * retries, and checkout sessions (`invoiceCollection(ctx, collectionId, { invoicing })` with the
 * session's `invoicing` settings).
 */
@Injectable()
export class Invoicing {
  private readonly logger = new Logger('invoicing');

  constructor(
    private readonly executor: AggregateExecutor,
    private readonly settingsOf: InvoicingSettingsOf,
    private readonly time: InvoiceTime,
    @Inject(INVOICING_PROVIDERS) private readonly providers: Map<string, InvoicingProvider>,
  ) {}

  /**
   * When a collection's invoice is issued: the subscription's `first_payment_invoicing` / `renewal_invoicing`,
   * a standalone collection's `invoicing`; never while the account's invoicing is off (`settings`: those in
   * force when the collection's event was written, see `InvoicingSettingsOf.settingsWhen`; else the current ones).
   */
  async timingOf(ctx: CommandContext, f: CollectionFields, settings?: InvoicingSettings): Promise<InvoicingTiming> {
    if (!(settings ?? (await this.settingsOf.settings(ctx))).enabled) return 'none';
    if (new Money(f.total).plus(f.amount_applied ?? '0').plus(f.amount_credited ?? '0').lte(0)) return 'none';
    // Switched off on this collection (a checkout session's `invoicing.enabled: false`).
    if (f.invoicing === 'none') return 'none';
    if (!f.subscription) return f.invoicing ?? 'none';
    if (!['subscription_create', 'subscription_trial', 'subscription_cycle'].includes(f.billing_reason)) return 'none';
    const { state } = await this.executor.load(subscriptionDecider, subscriptionStream(f.subscription));
    const sub = state.fields;
    if (!sub) return 'none';
    if (f.billing_reason === 'subscription_cycle' && !sub.renewal_invoicing) return 'none';
    return sub.first_payment_invoicing ?? 'after';
  }

  /**
   * Listener: a collection was created — its invoice now if its timing is `create`, with the settings in
   * force when it was created (the follower's later step decides as the inline one would have).
   */
  async collectionCreated(ctx: CommandContext, collectionId: string): Promise<string | null> {
    const settings = await this.settingsOf.settingsWhen(ctx, collectionStream(collectionId), 'collection.created');
    // Invoicing off: the collection is not even looked at.
    if (!settings.enabled) return null;
    const f = await this.collection(collectionId);
    if (!f || f.invoice || (await this.timingOf(ctx, f, settings)) !== 'create') return null;
    return (await this.invoiceCollection(ctx, collectionId)).position;
  }

  /**
   * Listener: a collection was paid — its invoice (made now when its timing is `after`) records the
   * payment. Whether an uninvoiced collection gets one depends on the settings in force when it was paid
   * (`collection.paid`), not when this step runs: a payment made while invoicing was off is never
   * invoiced by a follower or a re-run that comes after invoicing was turned on, and one made while it
   * was on is invoiced even if it was turned off since.
   */
  async collectionPaid(ctx: CommandContext, collectionId: string): Promise<string | null> {
    const f = await this.collection(collectionId);
    if (!f) return null;
    let position: string | null = null;
    if (!f.invoice) {
      const settings = await this.settingsOf.settingsWhen(ctx, collectionStream(collectionId), 'collection.paid');
      if ((await this.timingOf(ctx, f, settings)) === 'none') return null;
      position = (await this.invoiceCollection(ctx, collectionId)).position;
    }
    return laterPosition(position, await this.recordCollectionPayment(ctx, collectionId));
  }

  /** Listener: a collection was voided — its unpaid invoice is voided. */
  async collectionVoided(ctx: CommandContext, collectionId: string): Promise<string | null> {
    const f = await this.collection(collectionId);
    if (!f?.invoice) return null;
    const invoice = await this.invoice(f.invoice);
    if (!invoice || invoice.fields!.status === 'void' || new Money(invoice.fields!.total_paid).gt(0)) return null;
    return this.decide(ctx, f.invoice, (now) => ({ type: 'VoidInvoice', owner: ctx, invoiceId: f.invoice!, now }));
  }

  /** Listener: a paid, invoiced collection was refunded — a credit note for the amount refunded. */
  async collectionRefunded(ctx: CommandContext, collectionId: string, refund: { id: string; amount: string; reason: string | null }): Promise<string | null> {
    const f = await this.collection(collectionId);
    if (!f?.invoice || !(await this.invoice(f.invoice))) return null;
    const creditNoteId = newId('cn');
    const position = await this.decide(ctx, f.invoice, (now) => ({
      type: 'CreateCreditNote',
      owner: ctx,
      invoiceId: f.invoice!,
      creditNoteId,
      amount: refund.amount,
      // A refund's reason may be blank (the refund accepts it); a credit note needs one.
      reason: refund.reason?.trim() ? refund.reason : `Refund ${refund.id} of collection ${collectionId}`,
      refund: refund.id,
      now,
    }));
    return laterPosition(position, await this.issue(ctx, f.invoice));
  }

  /**
   * The collection's invoice, made once: its id is first attached to the collection (the first one
   * attached wins a race), then the invoice is created from the collection's lines and issued. Safe
   * to call again: an invoice already made is issued (if it is not yet) and returned.
   */
  async invoiceCollection(ctx: CommandContext, collectionId: string, options: { retention_rates?: RetentionRates } = {}): Promise<{ invoiceId: string; position: string | null }> {
    const loaded = await this.executor.load(collectionDecider, collectionStream(collectionId));
    if (!loaded.state.exists) throw new DomainError('resource_missing', `No such collection: '${collectionId}'`, 'collection', 404);
    let position: string | null = null;
    let invoiceId = loaded.state.fields!.invoice;
    if (!invoiceId) {
      const proposed = newId('inv');
      const attached = await this.executor.execute(
        collectionDecider,
        collectionStream(collectionId),
        (now) => ({ type: 'AttachInvoice' as const, owner: ctx, collectionId, invoiceId: proposed, invoiceNumber: null, now }),
        ctx,
      );
      position = attached.position;
      invoiceId = attached.state.fields!.invoice!;
    }
    const f = (await this.collection(collectionId))!;
    if (!(await this.invoice(invoiceId))) {
      const settings = await this.settingsOf.settings(ctx);
      const rates: RetentionRates = { ...settings.default_retentions };
      const own = await this.retentionsOf(f);
      for (const [k, v] of Object.entries({ ...own, ...(options.retention_rates ?? {}) })) if (v !== null && v !== undefined) rates[k as keyof RetentionRates] = v;
      const input: InvoiceInput = {
        source: 'collection',
        customer: f.customer,
        subscription: f.subscription,
        collection: collectionId,
        currency: f.currency,
        lines: linesOf(f),
        retention_rates: rates,
        invoice_settings: f.invoice_settings,
        due_date: f.due_date,
        meta_data: f.meta_data,
        test_clock: f.test_clock,
      };
      const id = invoiceId;
      try {
        position = laterPosition(position, await this.decide(ctx, id, (now) => ({ type: 'CreateInvoice', owner: ctx, invoiceId: id, input, now })));
      } catch (error) {
        // Made meanwhile by the other path (the request's inline step or the event follower): the same invoice.
        if (!(await this.invoice(id))) throw error;
      }
    }
    position = laterPosition(position, await this.issue(ctx, invoiceId));
    return { invoiceId, position };
  }

  /**
   * Issues what of an invoice the provider has not issued yet (the invoice, its credit notes). A
   * provider failure is recorded (`*.issuance_failed`, with the next attempt's time: the durable
   * deadline the scheduler runs) and never thrown.
   */
  async issue(ctx: CommandContext, invoiceId: string): Promise<string | null> {
    const state = await this.invoice(invoiceId);
    if (!state) return null;
    const f = state.fields!;
    let position: string | null = null;
    const provider = this.providers.get((await this.settingsOf.settings(ctx)).provider) ?? this.providers.get('simulator')!;
    if (f.issuance.status === 'pending' || f.issuance.status === 'failed') {
      try {
        const number = await this.settingsOf.numberFor(ctx, invoiceId, 'invoice');
        const customer = (await this.executor.load(customerDecider, customerStream(f.customer))).state.fields;
        const now = this.executor.now(ctx).toISOString();
        // Inside a unit of work what was decided so far is written before the provider hears of it.
        await this.executor.flush(ctx);
        const issued = await provider.issueInvoice({
          idempotencyKey: invoiceId,
          accountId: ctx.accountId,
          mode: ctx.mode,
          number,
          issuedAt: now,
          currency: f.currency,
          customer: { id: f.customer, name: customer?.name ?? null, document_type: customer?.document_type ?? null, document_number: customer?.document_number ?? null, email: customer?.email ?? null },
          lines: f.lines.map(({ description, quantity, amount, tax_id, tax_percentage }) => ({ description, quantity, amount, tax_id, tax_percentage })),
          retentionRates: f.retention_rates,
          dueDate: f.due_date,
          invoiceSettings: f.invoice_settings ?? NO_INVOICE_SETTINGS,
        });
        const fiscal = { provider: issued.provider, cufe: issued.cufe, pdf_url: issued.pdf_url, xml_url: issued.xml_url, issued_at: issued.issued_at };
        position = await this.decide(ctx, invoiceId, (at) => ({ type: 'RecordInvoiceIssued', owner: ctx, invoiceId, number: issued.number, fiscal, amounts: issued.amounts, now: at }));
        if (f.collection) {
          const collectionId = f.collection;
          const attached = await this.executor.execute(
            collectionDecider,
            collectionStream(collectionId),
            (at) => ({ type: 'AttachInvoice' as const, owner: ctx, collectionId, invoiceId, invoiceNumber: issued.number, now: at }),
            ctx,
          );
          position = laterPosition(position, attached.position);
        }
      } catch (error) {
        position = await this.decide(ctx, invoiceId, (at) => ({ type: 'RecordInvoiceIssuanceFailure', owner: ctx, invoiceId, error: describe(error), now: at }));
      }
    }
    for (const cn of Object.values((await this.invoice(invoiceId))!.creditNotes)) {
      if (cn.issuance.status !== 'pending' && cn.issuance.status !== 'failed') continue;
      const inv = (await this.invoice(invoiceId))!.fields!;
      try {
        const number = await this.settingsOf.numberFor(ctx, cn.id, 'credit_note');
        await this.executor.flush(ctx);
        const issued = await provider.issueCreditNote({
          idempotencyKey: cn.id,
          accountId: ctx.accountId,
          mode: ctx.mode,
          number,
          issuedAt: this.executor.now(ctx).toISOString(),
          invoice: { number: inv.number, cufe: inv.fiscal?.cufe ?? null },
          amount: cn.amount,
          currency: cn.currency,
          reason: cn.reason,
        });
        const fiscal = { provider: issued.provider, cufe: issued.cufe, pdf_url: issued.pdf_url, xml_url: issued.xml_url, issued_at: issued.issued_at };
        position = laterPosition(position, await this.decide(ctx, invoiceId, (at) => ({ type: 'RecordCreditNoteIssued', owner: ctx, invoiceId, creditNoteId: cn.id, number, fiscal, now: at })));
      } catch (error) {
        position = laterPosition(position, await this.decide(ctx, invoiceId, (at) => ({ type: 'RecordCreditNoteIssuanceFailure', owner: ctx, invoiceId, creditNoteId: cn.id, error: describe(error), now: at })));
      }
    }
    return position;
  }

  /**
   * The event follower's step (crash-safe invoicing, `InvoicingFollower`): what the inline listener
   * does after the collection's write, at the collection's test-clock time. Idempotent.
   */
  async followCollectionEvent(
    type: 'collection.created' | 'collection.paid' | 'collection.voided' | 'collection.payment_applied',
    base: CommandContext,
    collectionId: string,
    data: Record<string, unknown> = {},
  ): Promise<string | null> {
    const f = await this.collection(collectionId);
    if (!f) return null;
    const ctx = await this.time.ctxFor(base, f.test_clock);
    if (type === 'collection.created') return this.collectionCreated(ctx, collectionId);
    if (type === 'collection.paid') return this.collectionPaid(ctx, collectionId);
    if (type === 'collection.voided') return this.collectionVoided(ctx, collectionId);
    // Part of a registered payment (or an invoice's pay) lowered the collection: recorded on its invoice once (payment id `<receipt>:<collection>`).
    if (typeof data.receipt !== 'string' || typeof data.amount !== 'string') return null;
    const invoice = f.invoice ? await this.invoice(f.invoice) : null;
    if (invoice?.fields!.payments.some((p) => p.id === `${data.receipt}:${collectionId}`)) return null;
    return this.registeredPaymentApplied(ctx, collectionId, data.receipt, data.amount);
  }

  /** The paid collection's payment on its invoice (the collection id is the payment id: recorded once). */
  async recordCollectionPayment(ctx: CommandContext, collectionId: string): Promise<string | null> {
    const f = await this.collection(collectionId);
    if (!f?.invoice || (f.status !== 'paid' && f.status !== 'refunded')) return null;
    const invoice = await this.invoice(f.invoice);
    if (!invoice || invoice.fields!.payments.some((p) => p.id === collectionId)) return null;
    if (invoice.fields!.status === 'void') return null;
    const due = new Money(invoice.fields!.amount_due);
    // What the collection brought: its total plus what registered payments applied to it, less what is already recorded from it.
    const recorded = invoice.fields!.payments.filter((p) => p.collection === collectionId).reduce((s, p) => s.plus(p.amount), new Money(0));
    const amount = Money.min(due, new Money(f.total).plus(f.amount_applied ?? '0').minus(recorded));
    if (amount.lte(0)) return null;
    const cur = currencyOf(f.currency)!;
    return this.decide(ctx, f.invoice, (now) => ({
      type: 'RecordInvoicePayment',
      owner: ctx,
      invoiceId: f.invoice!,
      paymentId: collectionId,
      amount: formatAmount(amount, cur),
      collection: collectionId,
      paymentMethodType: f.paid_out_of_band ? 'out_of_band' : f.payment_method_type,
      receipt: f.paid_by ?? null,
      now,
    }));
  }

  /** Listener: part of a registered payment went to the collection — a payment on its invoice (receipt named). */
  async registeredPaymentApplied(ctx: CommandContext, collectionId: string, receiptId: string, amount: string): Promise<string | null> {
    const f = await this.collection(collectionId);
    if (!f?.invoice) return null;
    const invoice = await this.invoice(f.invoice);
    if (!invoice || invoice.fields!.status === 'void') return null;
    const take = Money.min(invoice.fields!.amount_due, amount);
    if (take.lte(0)) return null;
    return this.decide(ctx, f.invoice, (now) => ({
      type: 'RecordInvoicePayment',
      owner: ctx,
      invoiceId: f.invoice!,
      paymentId: `${receiptId}:${collectionId}`,
      amount: formatAmount(take, currencyOf(f.currency)!),
      collection: collectionId,
      paymentMethodType: 'registered_payment',
      receipt: receiptId,
      now,
    }));
  }

  async decide(ctx: CommandContext, invoiceId: string, command: (now: Date) => InvoiceCommand): Promise<string | null> {
    const { position } = await this.executor.execute(invoiceDecider, invoiceStream(invoiceId), command, ctx);
    return position;
  }

  async invoice(invoiceId: string): Promise<InvoiceState | null> {
    const { state } = await this.executor.load(invoiceDecider, invoiceStream(invoiceId));
    return state.exists ? state : null;
  }

  private async collection(collectionId: string): Promise<CollectionFields | null> {
    const { state } = await this.executor.load(collectionDecider, collectionStream(collectionId));
    return state.fields;
  }

  /** The collection's withholding rates, and `reteiva` from its subscription (collections carry only reteica and retefte). */
  private async retentionsOf(f: CollectionFields): Promise<RetentionRates> {
    const rates: RetentionRates = { reteica: f.invoice_retentions.reteica ?? null, retefte: f.invoice_retentions.retefte ?? null, reteiva: f.invoice_retentions.reteiva ?? null };
    if (f.subscription && !rates.reteiva) {
      const { state } = await this.executor.load(subscriptionDecider, subscriptionStream(f.subscription));
      rates.reteiva = state.fields?.invoice_retentions.reteiva ?? null;
    }
    return rates;
  }
}

/**
 * The invoice lines of a collection: one per item, each item's share of the collection's total
 * (discounts spread over the items in proportion, the last line taking the rounding rest, so the
 * lines add up to the total exactly), with its product's tax from `invoice_settings`. A collection
 * without items is one untaxed line.
 */
export function linesOf(f: CollectionFields): InvoiceLineInput[] {
  const cur = currencyOf(f.currency)!;
  // What the collection asked before registered payments and credit notes lowered it.
  const total = new Money(f.total).plus(f.amount_applied ?? '0').plus(f.amount_credited ?? '0');
  const items = (f.items ?? []).filter((i) => new Money(i.total).gt(0));
  if (items.length === 0) return [{ description: f.description ?? `Collection`, quantity: 1, amount: formatAmount(total, cur), tax_id: null, tax_percentage: null }];
  const sum = items.reduce((s, i) => s.plus(i.total), new Money(0));
  let rest = total;
  return items.map((item, i) => {
    const share = i === items.length - 1 ? rest : new Money(item.total).times(total).div(sum).toDecimalPlaces(cur.exponent, Money.ROUND_HALF_UP);
    rest = rest.minus(share);
    const settings = (item.product as { invoice_settings?: { invoice_tax_id?: string | null; invoice_tax_percentage?: string | null } }).invoice_settings ?? {};
    return {
      description: item.name,
      quantity: item.quantity,
      amount: formatAmount(share, cur),
      tax_id: settings.invoice_tax_id ?? null,
      tax_percentage: settings.invoice_tax_percentage ?? null,
    };
  });
}

const describe = (error: unknown) => (error instanceof Error ? `${(error as { code?: string }).code ?? 'provider_error'}: ${error.message}` : 'provider_error');
