import { Injectable } from '@nestjs/common';
import { laterPosition } from '#event-store/positions.js';
import type { CommandContext } from '#platform/command-context.js';

/** What other contexts learn when a collection is paid. */
export interface CollectionPaidNotice {
  collectionId: string;
  subscriptionId: string | null;
  customerId: string;
  /** The stored method that paid (saved from one-off data, or the one charged); null otherwise. */
  paymentMethod: string | null;
  tokenizable: boolean;
  /** The collection's `billing_reason` (a renewal's is `subscription_cycle`), when the caller knows it. */
  billingReason?: string;
}

export interface CollectionPaidListener {
  /** Returns the position of the last event it wrote, if any. Must be idempotent. */
  collectionPaid(ctx: CommandContext, notice: CollectionPaidNotice): Promise<string | null>;
}

/** What other contexts (invoicing) hear of a collection's life besides its payment. Each must be idempotent. */
export interface CollectionLifecycleListener {
  collectionCreated?(ctx: CommandContext, collectionId: string): Promise<string | null>;
  collectionVoided?(ctx: CommandContext, collectionId: string): Promise<string | null>;
  collectionRefunded?(ctx: CommandContext, collectionId: string, refund: { id: string; amount: string; reason: string | null }): Promise<string | null>;
  /** Part of a registered payment (receipt `receiptId`) went to the collection (it may have paid it). */
  registeredPaymentApplied?(ctx: CommandContext, collectionId: string, receiptId: string, amount: string): Promise<string | null>;
  /**
   * The gateway approved a charge whose outcome is about to be recorded (`charge.paid`,
   * `collection.paid` come next, in the same commit): what must precede them (a checkout session's
   * `checkout_session.completed`, in the spec's order).
   */
  paymentSucceeding?(ctx: CommandContext, collectionId: string, chargeId: string): Promise<string | null>;
  /** An attempt failed (`collection.payment_failed`): a decline, or an asynchronous payment refused or timed out. */
  paymentFailed?(ctx: CommandContext, collectionId: string, failure: { failure_code: string | null; failure_message: string | null; decline_code: string | null }): Promise<string | null>;
}

/**
 * Collections do not know subscriptions; subscriptions register here to hear of paid collections
 * (e.g. to activate, or switch to charge). Called inline after the payment, so the response that
 * reports the payment already shows its consequences.
 */
@Injectable()
export class PaymentFollowUps {
  private readonly listeners: CollectionPaidListener[] = [];

  register(listener: CollectionPaidListener): void {
    this.listeners.push(listener);
  }

  private readonly lifecycle: CollectionLifecycleListener[] = [];

  registerLifecycle(listener: CollectionLifecycleListener): void {
    this.lifecycle.push(listener);
  }

  async collectionCreated(ctx: CommandContext, collectionId: string): Promise<string | null> {
    return latestOf(this.lifecycle, (l) => l.collectionCreated?.(ctx, collectionId));
  }

  async collectionVoided(ctx: CommandContext, collectionId: string): Promise<string | null> {
    return latestOf(this.lifecycle, (l) => l.collectionVoided?.(ctx, collectionId));
  }

  async collectionRefunded(ctx: CommandContext, collectionId: string, refund: { id: string; amount: string; reason: string | null }): Promise<string | null> {
    return latestOf(this.lifecycle, (l) => l.collectionRefunded?.(ctx, collectionId, refund));
  }

  async registeredPaymentApplied(ctx: CommandContext, collectionId: string, receiptId: string, amount: string): Promise<string | null> {
    return latestOf(this.lifecycle, (l) => l.registeredPaymentApplied?.(ctx, collectionId, receiptId, amount));
  }

  async paymentSucceeding(ctx: CommandContext, collectionId: string, chargeId: string): Promise<string | null> {
    return latestOf(this.lifecycle, (l) => l.paymentSucceeding?.(ctx, collectionId, chargeId));
  }

  async paymentFailed(ctx: CommandContext, collectionId: string, failure: { failure_code: string | null; failure_message: string | null; decline_code: string | null }): Promise<string | null> {
    return latestOf(this.lifecycle, (l) => l.paymentFailed?.(ctx, collectionId, failure));
  }

  async collectionPaid(ctx: CommandContext, notice: CollectionPaidNotice): Promise<string | null> {
    return latestOf(this.listeners, (l) => l.collectionPaid(ctx, notice));
  }
}

/**
 * Runs the listeners one after another; the latest position any of them wrote (for read-your-writes:
 * a later listener may write nothing, or answer an idempotent replay with an older position).
 */
async function latestOf<L>(listeners: readonly L[], hear: (listener: L) => Promise<string | null> | undefined): Promise<string | null> {
  let position: string | null = null;
  for (const l of listeners) position = laterPosition(position, (await hear(l)) ?? null);
  return position;
}
