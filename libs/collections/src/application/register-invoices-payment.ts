import { Inject } from '@nestjs/common';
import { laterPosition } from '#event-store/positions.js';
import { ownedBy } from '#shared/owner.js';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { Config } from '#platform/config.js';
import { ReadModels } from '#platform/read-models.js';
import { CONFIG } from '#platform/tokens.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { TestClockTime } from '#test-clocks/application/test-clock-time.js';
import { type BillingAddress, customerDecider, customerStream } from '#customers/domain/customer.decider.js';
import { ApiError, DomainError, invalidParam, notFound } from '#shared/errors.js';
import { newId } from '#shared/ids.js';
import { type Currency, Money, currency as currencyOf, formatAmount } from '#shared/money.js';
import type { CollectionDoc } from '../read-models/collection.read-model.js';
import {
  type AppliedPayment,
  type CollectionPaid,
  type CollectionState,
  type OpenCollection,
  type RegisteredPaymentStep,
  collectionDecider,
  collectionStream,
  planRegisteredPayment,
} from '../domain/collection.decider.js';
import { CollectionPayments } from './collection-payments.js';
import { collectionCheckoutUrl } from './create-collection.js';
import { FiscalInvoices } from './fiscal-invoices.js';
import { createReceipt } from './receipt-collection.js';

export interface RegisterInvoicesPaymentBody {
  amount: string;
  /** Only needed when the customer's open collections are in more than one currency. */
  currency?: string;
}

export class RegisterInvoicesPaymentCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly customerId: string,
    readonly body: RegisterInvoicesPaymentBody,
  ) {}
}

/** Rounds of deciding: the first, and two more after a concurrent change interrupted the application. */
const MAX_ROUNDS = 3;
const OPEN_STATUSES = ['pending', 'past_due', 'uncollectible'];
const PAGE = 200;

type Open = { id: string; state: CollectionState; view: OpenCollection };
/** One application: `invoice` is the collection's fiscal invoice it paid into, if it has one. */
type Applied = { collection: string; amount: string; invoice: string | null; state: CollectionState; paid: CollectionPaid['data'] | null; ctx: CommandContext; position: string | null };


/**
 * `POST /v1/customers/{id}/register_invoices_payment`: one payment received from the customer
 * (outside the service) is applied to the customer's open invoices in the spec's order
 * (`paymentOrder`: overdue oldest first, then upcoming nearest first). An invoice is paid through its
 * open collection: with a fiscal invoice (invoicing enabled) it is weighed at the invoice's real
 * amount due and due date, and each application is recorded on the invoice
 * (`invoice.payment_recorded`, receipt named); without one, the open `type=invoice` collection stands
 * in for its invoice (its total is the balance). A covered collection is paid out of band
 * (`collection.paid`, `paid_by` the receipt), as is one whose invoice the amount settles (credit notes
 * took the rest off); the last, partly covered one has its total lowered
 * (`collection.payment_applied`). Then the receipt is created paid (`collection.created` +
 * `collection.paid`): no items, total = amount, `applied_to`. Subscriptions of paid collections are
 * told, as after any payment.
 *
 * Every rule is checked before anything is written (nothing is written on a rejection). Each
 * application is decided by the collection decider against the collection's stream with its
 * expected revision and the total the plan saw: a concurrent change (a pay, an update, another
 * registered payment) refuses it. If that happens before anything was applied, the whole request
 * is decided again from the collections as they are then (up to 3 times, then 409); if it happens
 * midway, the applications made stand and the rest of the amount is decided again over what is
 * open then; what still finds no open collection stays on the receipt unapplied (its total is more
 * than the sum of `applied_to`).
 */
@CommandHandler(RegisterInvoicesPaymentCommand)
export class RegisterInvoicesPaymentHandler implements ICommandHandler<RegisterInvoicesPaymentCommand, CommandResult> {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly readModels: ReadModels,
    private readonly payments: CollectionPayments,
    private readonly clocks: TestClockTime,
    @Inject(CONFIG) private readonly config: Config,
    private readonly fiscal: FiscalInvoices,
  ) {}

  async execute({ ctx: request, customerId, body }: RegisterInvoicesPaymentCommand): Promise<CommandResult> {
    const customer = (await this.executor.load(customerDecider, customerStream(customerId))).state;
    if (!ownedBy(customer, request)) throw notFound('customer', customerId);
    // The customer's collections live on its test clock, if any: the order (overdue or not) is decided at its time.
    const testClock = customer.fields!.test_clock ?? null;
    const ctx = await this.clocks.contextFor(request, testClock);
    const receiptId = newId('col');
    const applied: Applied[] = [];
    let cur: Currency | null = null;
    let interrupted: ApiError | null = null;
    for (let round = 1; round <= MAX_ROUNDS; round++) {
      const open = await this.openCollections(ctx, customerId);
      const strict = applied.length === 0;
      if (strict) cur = this.currencyFor(customerId, open, body.currency);
      const inCurrency = open.filter((o) => o.state.fields!.currency === cur!.code);
      const left = strict ? body.amount : formatAmount(new Money(body.amount).minus(sum(applied)), cur!);
      const steps = planRegisteredPayment(customerId, inCurrency.map((o) => o.view), left, cur!, this.executor.now(ctx), strict);
      interrupted = await this.apply(ctx, receiptId, steps, inCurrency, applied);
      if (!interrupted || sum(applied).gte(body.amount)) break;
    }
    if (applied.length === 0) {
      // Decided MAX_ROUNDS times, refused each time by a concurrent change: nothing was written.
      throw new ApiError(409, 'invalid_request_error', 'concurrent_update', `The customer's collections were changed by another request while the payment was applied (${interrupted?.message ?? 'no collection could be applied to'}); retry.`);
    }
    let position = applied.reduce<string | null>((p, a) => laterPosition(p, a.position), null);
    position = laterPosition(position, await this.createReceipt(ctx, customerId, customer.fields!.billing_address, testClock, receiptId, body.amount, cur!, applied));
    // The invoices of the collections paid into hear of it first (each application is a payment on its invoice).
    for (const a of applied) position = laterPosition(position, await this.payments.followUps.registeredPaymentApplied(a.ctx, a.collection, receiptId, a.amount));
    for (const a of applied) {
      if (a.paid && a.state.fields!.subscription) position = laterPosition(position, await this.payments.afterPaid(a.ctx, a.state, a.paid, null));
    }
    return { id: receiptId, position };
  }

  /** The currency of the payment: the one of the customer's open collections, or `currency` when they have several. */
  private currencyFor(customerId: string, open: Open[], requested: string | undefined): Currency {
    if (requested !== undefined) {
      const cur = currencyOf(requested);
      if (!cur) throw invalidParam('currency', `currency must be an ISO 4217 currency code (got ${requested})`);
      return cur;
    }
    const codes = [...new Set(open.map((o) => o.state.fields!.currency))].sort();
    if (codes.length > 1) {
      throw new DomainError('parameter_missing', `Customer ${customerId} has open collections in several currencies (${codes.join(', ')}): send currency`, 'currency', 400);
    }
    return currencyOf(codes[0] ?? 'COP')!;
  }

  /**
   * The customer's open collections (pending, past_due, uncollectible; type invoice), found by the read
   * model and read from their streams, each with its fiscal invoice's amount due and due date when it
   * has one (read from the invoice's stream; a void invoice's collection is skipped). Collections that
   * share an invoice (a partial payment's balance) share its amount due, oldest first.
   */
  private async openCollections(ctx: CommandContext, customerId: string): Promise<Open[]> {
    const out: Open[] = [];
    const dueLeft = new Map<string, Money>();
    let after: { value: string; id: string } | undefined;
    for (;;) {
      const rows = await this.readModels.store.find<CollectionDoc>('collections', {
        where: { _account: ctx.accountId, is_test: ctx.mode === 'test', _deleted: false, customer: customerId, status: OPEN_STATUSES },
        orderBy: { field: '_created', direction: 'asc' },
        after,
        limit: PAGE,
      });
      for (const doc of rows) {
        const { state, history } = await this.executor.loadHistory(collectionDecider, collectionStream(doc.id));
        const f = state.fields;
        if (!state.exists || !f || !OPEN_STATUSES.includes(f.status) || f.type !== 'invoice' || f.customer !== customerId) continue;
        const created = history[0]?.data as { created_at?: string } | undefined;
        const view: OpenCollection = { id: doc.id, status: f.status, total: f.total, due_date: f.due_date, created_at: created?.created_at ?? doc._created, collecting: f.collecting };
        const chain = f.balance_of ? await this.chainOf(f.balance_of) : { invoice: null, depth: 0 };
        view.depth = chain.depth;
        const invoice = await this.fiscal.balanceOf(f.invoice ?? chain.invoice);
        if (invoice) {
          if (invoice.status === 'void') continue;
          const left = dueLeft.get(invoice.id) ?? new Money(invoice.amount_due);
          const owed = Money.min(left, f.total);
          dueLeft.set(invoice.id, left.minus(owed));
          view.invoice = invoice.id;
          view.balance = formatAmount(owed, currencyOf(f.currency)!);
          view.due_date = invoice.due_date ?? f.due_date;
        }
        out.push({ id: doc.id, state, view });
      }
      if (rows.length < PAGE) return out;
      const last = rows[rows.length - 1];
      after = { value: last._created, id: last.id };
    }
  }

  /**
   * A balance collection's place in its partial payment's chain (how many `balance_of` links lead up
   * to the first collection, counting the one to `collectionId`) and the fiscal invoice of the nearest
   * collection up the chain that has one (a balance collection shares it).
   */
  private async chainOf(collectionId: string): Promise<{ invoice: string | null; depth: number }> {
    let invoice: string | null = null;
    let depth = 1;
    let id: string | null = collectionId;
    for (let i = 0; id && i < 100; i++) {
      const f: CollectionState['fields'] = (await this.executor.load(collectionDecider, collectionStream(id))).state.fields;
      if (!f) break;
      invoice = invoice ?? f.invoice;
      if (!f.balance_of) break;
      depth++;
      id = f.balance_of;
    }
    return { invoice, depth };
  }

  /** Applies the steps in order; returns the refusal that interrupted them (a concurrent change), or null. */
  private async apply(ctx: CommandContext, receiptId: string, steps: RegisteredPaymentStep[], open: Open[], applied: Applied[]): Promise<ApiError | null> {
    for (const step of steps) {
      const target = open.find((o) => o.id === step.collection)!;
      const at = await this.clocks.contextFor(ctx, target.state.fields!.test_clock);
      try {
        const done = await this.executor.execute(
          collectionDecider,
          collectionStream(step.collection),
          (now) => ({
            type: 'ApplyRegisteredPayment' as const,
            owner: at,
            collectionId: step.collection,
            receiptId,
            amount: step.amount,
            expectedTotal: step.expected_total,
            settlesInvoice: step.settles_invoice,
            now,
          }),
          at,
        );
        const paid = done.events.find((e) => e.type === 'collection.paid');
        applied.push({
          collection: step.collection,
          amount: step.amount,
          invoice: target.view.invoice ?? null,
          state: done.state,
          paid: paid ? (paid.data as unknown as CollectionPaid['data']) : null,
          ctx: at,
          position: done.position,
        });
      } catch (error) {
        if (error instanceof ApiError && error.status < 500) return error;
        throw error;
      }
    }
    return null;
  }

  private async createReceipt(
    ctx: CommandContext,
    customerId: string,
    billingAddress: BillingAddress | null,
    testClock: string | null,
    receiptId: string,
    amount: string,
    cur: Currency,
    applied: Applied[],
  ): Promise<string | null> {
    // One entry per collection, in the order first applied (a collection applied to twice, after an interruption, is summed).
    const byCollection = new Map<string, Money>();
    for (const a of applied) byCollection.set(a.collection, (byCollection.get(a.collection) ?? new Money(0)).plus(a.amount));
    const appliedTo: AppliedPayment[] = [...byCollection].map(([collection, total]) => ({ collection, amount: formatAmount(total, cur) }));
    const n = appliedTo.length;
    return createReceipt(this.executor, ctx, {
      receiptId,
      customerId,
      billingAddress,
      currency: cur.code,
      amount: formatAmount(amount, cur),
      description: `Payment registered for ${n} collection${n === 1 ? '' : 's'}`,
      appliedTo,
      invoices: applied.flatMap((a) => (a.invoice ? [a.invoice] : [])),
      billingReason: 'invoices_payment',
      checkoutUrl: collectionCheckoutUrl(this.config, receiptId),
      testClock,
    });
  }
}

const sum = (applied: Applied[]) => applied.reduce((s, a) => s.plus(a.amount), new Money(0));
