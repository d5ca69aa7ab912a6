import { Injectable, Logger } from '@nestjs/common';
import { laterPosition } from '#event-store/positions.js';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import { ApiError, DomainError } from '#shared/errors.js';
import { Money, currency as currencyOf, formatAmount } from '#shared/money.js';
import { type CollectionFields, PAYABLE, collectionDecider, collectionStream } from '#collections/domain/collection.decider.js';
import { CollectionPayments } from '#collections/application/collection-payments.js';
import { chainFrom, loadChainMember } from '#collections/application/collection-invoice.js';
import type { InvoiceFields } from '../domain/invoice.decider.js';

/** Rounds of placing a credit: the first, and two more after a concurrent payment or credit changed a collection. */
const MAX_ROUNDS = 3;

type Chain = Array<{ id: string; f: CollectionFields }>;

/**
 * The collection side of credit notes (docs/decisions/0040-credit-notes.md): a
 * credit note is first taken off what the invoice's open collections ask (`CreditCollection`, decided
 * against each collection's stream with the total this step saw), then recorded on the invoice. Payments
 * (register_invoices_payment, invoice pay, a charge) also change the collection first and the invoice
 * after, so the collection is where a credit and a payment racing for one invoice are serialised: the
 * second one finds the total changed and is decided again over what is left. Voiding a credit note
 * asks the credited amount again of the collections it was applied to (refused once they are closed).
 */
@Injectable()
export class CreditNoteCollections {
  private readonly logger = new Logger('invoicing');

  constructor(
    private readonly executor: AggregateExecutor,
    private readonly payments: CollectionPayments,
  ) {}

  /** The invoice's collections: its own and, after a partial payment, each balance collection in the chain's order. */
  async chainOf(invoice: InvoiceFields): Promise<Chain> {
    const root = invoice.collection ? await loadChainMember(this.executor, invoice.collection) : null;
    return root ? (await chainFrom(this.executor, root)).map((m) => ({ id: m.id, f: m.fields })) : [];
  }

  /** Whether the invoice has collections of ours at all (an invoice without any is credited on the invoice alone). */
  hasCollections(invoice: InvoiceFields): boolean {
    return invoice.collection !== null;
  }

  /**
   * Takes `amount` off the invoice's open collections, in the chain's order (each at most what it asks).
   * Returns what was placed (all of `amount`, or — when a racing payment took part of it midway — less)
   * and the collections it settled. Refuses (nothing written) when the open collections ask less than
   * `amount`, or one of them has a payment in flight.
   */
  async credit(ctx: CommandContext, invoiceId: string, invoice: InvoiceFields, creditNoteId: string, amount: string): Promise<{ placed: string; settled: string[]; position: string | null }> {
    const cur = currencyOf(invoice.currency)!;
    const wanted = new Money(amount);
    let position: string | null = null;
    const settled: string[] = [];
    let interrupted: ApiError | null = null;
    let placed = new Money(0);
    for (let round = 1; round <= MAX_ROUNDS; round++) {
      const chain = await this.chainOf(invoice);
      // What this credit note already took off (a round interrupted midway, or a retried request).
      placed = chain.reduce((s, c) => s.plus((c.f.credit_notes ?? []).find((x) => x.credit_note === creditNoteId)?.amount ?? 0), new Money(0));
      const open = chain.filter((c) => PAYABLE.includes(c.f.status) && !(c.f.credit_notes ?? []).some((x) => x.credit_note === creditNoteId) && new Money(c.f.total).gt(0));
      const busy = open.find((c) => c.f.collecting || c.f.status === 'processing');
      if (busy && placed.isZero()) throw new DomainError('payment_in_progress', `Cannot credit invoice ${invoiceId}: collection ${busy.id} has a payment attempt in progress`, null, 409);
      const asks = open.reduce((s, c) => s.plus(c.f.total), new Money(0));
      let remaining = wanted.minus(placed);
      if (remaining.lte(0)) break;
      if (placed.isZero() && remaining.gt(asks)) {
        throw new DomainError(
          'credit_note_exceeds_balance',
          `amount ${formatAmount(wanted, cur)} is more than the open collections of invoice ${invoiceId} still ask: ${formatAmount(asks, cur)} (a credit note never takes the balance below zero)`,
          'amount',
          400,
        );
      }
      interrupted = null;
      for (const c of open) {
        if (remaining.lte(0)) break;
        const share = Money.min(remaining, c.f.total);
        try {
          const done = await this.executor.execute(
            collectionDecider,
            collectionStream(c.id),
            (now) => ({ type: 'CreditCollection' as const, owner: ctx, collectionId: c.id, creditNoteId, invoiceId, amount: formatAmount(share, cur), expectedTotal: c.f.total, now }),
            ctx,
          );
          position = laterPosition(position, done.position);
          if (done.events.some((e) => e.type === 'collection.paid')) settled.push(c.id);
          remaining = remaining.minus(share);
          placed = placed.plus(share);
        } catch (error) {
          // A payment or another credit changed the collection after this step looked: decided again.
          if (error instanceof ApiError && error.status === 409) {
            interrupted = error;
            break;
          }
          throw error;
        }
      }
      if (!interrupted) break;
    }
    if (placed.isZero()) {
      throw interrupted ?? new DomainError('credit_note_exceeds_balance', `Invoice ${invoiceId} has no open collection to credit`, 'amount', 400);
    }
    // Every collection this credit note settled, in this run or in an earlier one that stopped before its follow-ups.
    for (const c of await this.chainOf(invoice)) if (c.f.settled_by_credit_note === creditNoteId && !settled.includes(c.id)) settled.push(c.id);
    return { placed: formatAmount(Money.min(placed, wanted), cur), settled, position };
  }

  /** What follows a collection the credit settled: its subscription hears of it as of a payment in full. */
  async afterSettled(ctx: CommandContext, collections: string[]): Promise<string | null> {
    let position: string | null = null;
    for (const id of collections) position = laterPosition(position, await this.payments.followUpPaid(ctx, id));
    return position;
  }

  /** A voided credit note: each collection it was applied to asks the amount again (409 when one is closed: nothing changes there). */
  async reverse(ctx: CommandContext, invoice: InvoiceFields, creditNoteId: string): Promise<string | null> {
    let position: string | null = null;
    for (const c of await this.chainOf(invoice)) {
      const credit = (c.f.credit_notes ?? []).find((x) => x.credit_note === creditNoteId);
      if (!credit || credit.voided) continue;
      const done = await this.executor.execute(
        collectionDecider,
        collectionStream(c.id),
        (now) => ({ type: 'ReverseCollectionCredit' as const, owner: ctx, collectionId: c.id, creditNoteId, now }),
        ctx,
      );
      position = laterPosition(position, done.position);
    }
    return position;
  }

  /** Undo a collection credit whose credit note the invoice then refused (best effort; logged when it cannot be). */
  async undo(ctx: CommandContext, invoice: InvoiceFields, creditNoteId: string): Promise<void> {
    try {
      await this.reverse(ctx, invoice, creditNoteId);
    } catch (error) {
      this.logger.error(`credit note ${creditNoteId}: the invoice refused it and its collection credit could not be reversed: ${(error as Error).message}`);
    }
  }
}
