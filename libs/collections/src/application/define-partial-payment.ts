import { Inject } from '@nestjs/common';
import { ownedBy } from '#shared/owner.js';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { Config } from '#platform/config.js';
import { CONFIG } from '#platform/tokens.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { TestClockTime } from '#test-clocks/application/test-clock-time.js';
import { invalidParam, notFound } from '#shared/errors.js';
import { newId } from '#shared/ids.js';
import { Money, isDecimalString } from '#shared/money.js';
import type { RecordedEvent } from '#event-store/event-store.port.js';
import { laterPosition } from '#event-store/positions.js';
import { type CollectionPartialPaymentDefined, type CollectionState, collectionDecider, collectionStream } from '../domain/collection.decider.js';
import { collectionCheckoutUrl } from './create-collection.js';
import { FiscalInvoices } from './fiscal-invoices.js';
import { invoiceOf } from './collection-invoice.js';

export interface PartialPaymentBody {
  amount: string;
  create_collection_with_balance?: boolean;
  days_until_due?: number;
  collection_rule_id?: string;
}

export class DefinePartialPaymentCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly collectionId: string,
    readonly body: PartialPaymentBody,
  ) {}
}

/**
 * `POST /v1/collections/{id}/partial_payment` (deprecated): the collection's total becomes `amount`
 * (`collection.partial_payment_defined`). With `create_collection_with_balance: true` a second
 * collection is then created for the rest (`collection.created` + `collection.sent`): same customer,
 * subscription, currency and meta_data, no items, `balance_of` the first one, due `days_until_due`
 * days after the partial payment. The partial payment is written first and names the balance
 * collection; should the process stop before the balance collection is written, the next
 * partial_payment request on the collection writes it (and a repeat of the same amount then answers
 * as the first would have).
 */
@CommandHandler(DefinePartialPaymentCommand)
export class DefinePartialPaymentHandler implements ICommandHandler<DefinePartialPaymentCommand, CommandResult> {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly clocks: TestClockTime,
    @Inject(CONFIG) private readonly config: Config,
    private readonly fiscal: FiscalInvoices,
  ) {}

  async execute({ ctx: request, collectionId, body }: DefinePartialPaymentCommand): Promise<CommandResult> {
    const { state, history } = await this.executor.loadHistory(collectionDecider, collectionStream(collectionId));
    if (!ownedBy(state, request)) throw notFound('collection', collectionId);
    const ctx = await this.clocks.contextFor(request, state.fields!.test_clock);
    const withBalance = body.create_collection_with_balance === true;
    if (!withBalance && body.days_until_due !== undefined) {
      throw invalidParam('days_until_due', 'days_until_due is only allowed with create_collection_with_balance: true');
    }
    if (!withBalance && body.collection_rule_id !== undefined) {
      throw invalidParam('collection_rule_id', 'collection_rule_id is only allowed with create_collection_with_balance: true');
    }
    const unfinished = await this.unfinishedBalance(ctx, collectionId, state, history);
    if (unfinished !== null && state.fields!.partial_payment && isDecimalString(body.amount) && new Money(body.amount).eq(state.fields!.partial_payment.amount)) {
      return { id: collectionId, position: unfinished };
    }
    const balanceId = withBalance ? newId('col') : null;
    // With a fiscal invoice (this collection's, or its chain's first one's), the amount is weighed against its real amount due.
    const fiscalId = state.fields!.invoice ?? (await invoiceOf(this.executor, collectionId, state.fields!)).fiscal_invoice;
    const fiscal = await this.fiscal.balanceOf(fiscalId);
    const defined = await this.executor.execute(
      collectionDecider,
      collectionStream(collectionId),
      (now) => ({
        type: 'DefinePartialPayment' as const,
        owner: ctx,
        collectionId,
        amount: body.amount,
        balance: balanceId ? { collectionId: balanceId, days_until_due: body.days_until_due ?? null, collection_rule_id: body.collection_rule_id ?? null } : null,
        invoice: fiscal ? { id: fiscal.id, status: fiscal.status, amount_due: fiscal.amount_due } : null,
        now,
      }),
      ctx,
    );
    const event = defined.events.find((e) => e.type === 'collection.partial_payment_defined');
    const balancePosition = event ? await this.createBalance(ctx, collectionId, defined.state, event.data as unknown as CollectionPartialPaymentDefined['data']) : null;
    return { id: collectionId, position: balancePosition ?? defined.position };
  }

  /** The balance collection a partial payment named but that was never written (the process stopped in between): written now. */
  private async unfinishedBalance(ctx: CommandContext, collectionId: string, state: CollectionState, history: RecordedEvent[]): Promise<string | null> {
    const balanceId = state.fields!.partial_payment?.balance_collection;
    if (!balanceId) return null;
    const balance = await this.executor.load(collectionDecider, collectionStream(balanceId));
    if (balance.state.exists) return null;
    const defined = history.find((e) => e.type === 'collection.partial_payment_defined');
    if (!defined) return null;
    return this.createBalance(ctx, collectionId, state, defined.data as unknown as CollectionPartialPaymentDefined['data']);
  }

  private async createBalance(ctx: CommandContext, collectionId: string, state: CollectionState, data: CollectionPartialPaymentDefined['data']): Promise<string | null> {
    const balanceId = data.partial_payment.balance_collection;
    if (!balanceId) return null;
    const f = state.fields!;
    const { position } = await this.executor.execute(
      collectionDecider,
      collectionStream(balanceId),
      (now) => ({
        type: 'CreateItemlessCollection' as const,
        owner: ctx,
        collectionId: balanceId,
        input: {
          kind: 'balance' as const,
          customer: { id: f.customer, billing_address: f.billing_address },
          subscription: f.subscription,
          currency: f.currency,
          total: data.partial_payment.balance,
          description: `Balance of ${collectionId}`,
          meta_data: f.meta_data,
          invoice_settings: f.invoice_settings,
          invoice_retentions: f.invoice_retentions,
          collection_rule_id: data.balance_collection_rule_id,
          due_date: data.balance_due_date,
          balance_of: collectionId,
          applied_to: null,
          billing_reason: 'partial_payment_balance',
          checkout_url: collectionCheckoutUrl(this.config, balanceId),
          test_clock: f.test_clock,
          retry_schedule: f.retry_schedule,
        },
        now,
      }),
      ctx,
    );
    // The balance is part of the same fiscal invoice: its payment is recorded on it.
    const invoiceId = f.invoice ?? (await invoiceOf(this.executor, collectionId, f)).fiscal_invoice;
    if (!invoiceId) return position;
    const attached = await this.executor.execute(
      collectionDecider,
      collectionStream(balanceId),
      (now) => ({ type: 'AttachInvoice' as const, owner: ctx, collectionId: balanceId, invoiceId, invoiceNumber: f.invoice === invoiceId ? f.invoice_number : null, now }),
      ctx,
    );
    return laterPosition(position, attached.position);
  }
}
