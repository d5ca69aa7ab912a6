import { Inject } from '@nestjs/common';
import { CommandBus, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import { EVENT_STORE, READ_STORE } from '#platform/tokens.js';
import type { EventStore } from '#event-store/event-store.port.js';
import { StateCollections } from '#platform/state-collections.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { notFound } from '#shared/errors.js';
import { ownedBy } from '#shared/owner.js';
import { SecretSealer } from '#shared/sealing.js';
import { FINAL_STATES, type SubscriptionStatus } from '#subscriptions/domain/subscription/subscription.state.js';
import { CancelSubscriptionCommand } from '#subscriptions/application/cancel-subscription.js';
import { DeletePaymentMethodCommand } from '#payments/application/delete-payment-method.js';
import { type CustomerFields, customerDecider, customerStream } from '../domain/customer.decider.js';
import { CustomerKeyring } from '../personal-data/customer-keys.js';
import { scrubReadModels } from '../personal-data/read-model-scrub.js';
import { CustomerEmailClaims } from './customer-email-claims.js';
import { FISCAL_BUYERS, FISCAL_BUYERS_SPEC, type FiscalBuyer, type FiscalBuyerDoc, FISCAL_RETENTION_BASIS, FISCAL_RETENTION_YEARS, fiscalPurgeFields } from '../personal-data/fiscal-retention.js';

export class EraseCustomerCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly customerId: string,
    /** The CLI (ROLE=api, no pipeline of its own): the read models are caught up here instead of waited for. */
    readonly options: { catchUp?: boolean } = {},
  ) {}
}

/** The answer of `POST /v1/customers/{id}/erase` (docs/personal-data.md). */
export interface CustomerErasure {
  object: 'customer_erasure';
  /** The customer's id. */
  id: string;
  erased_at: string;
  /** Subscriptions canceled now by the erasure. */
  subscriptions_canceled: string[];
  /** Payment methods removed: the customer can no longer be charged. */
  payment_methods_removed: string[];
  /** What tax law makes the merchant keep: the buyer identification of issued fiscal invoices, kept apart. */
  fiscal_retention: { kept: boolean; invoices: string[]; kept_until: string | null; basis: string | null };
  position: string | null;
}

const PAGE = 500;

/**
 * Erases a customer (crypto-shredding, docs/personal-data.md): keeps apart what tax law requires of
 * its issued invoices, destroys its data key, records `customer.erased`, cancels its subscriptions
 * now and removes its payment methods. Safe to run again: each step is done once (a second run
 * finds the key destroyed, the erasure recorded, nothing left to cancel or remove).
 */
@CommandHandler(EraseCustomerCommand)
export class EraseCustomerHandler implements ICommandHandler<EraseCustomerCommand, CustomerErasure> {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly keys: CustomerKeyring,
    private readonly sealer: SecretSealer,
    private readonly commands: CommandBus,
    private readonly engine: ProjectionEngine,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(EVENT_STORE) private readonly events: EventStore,
    private readonly claims: CustomerEmailClaims,
    collections: StateCollections,
  ) {
    collections.register(FISCAL_BUYERS_SPEC);
  }

  private async settle(position: string | null, catchUp: boolean): Promise<void> {
    if (catchUp) await this.engine.catchUp();
    else if (position) await this.engine.waitFor(position);
  }

  async execute({ ctx, customerId, options }: EraseCustomerCommand): Promise<CustomerErasure> {
    const catchUp = options.catchUp === true;
    const stream = customerStream(customerId);
    const { state } = await this.executor.load(customerDecider, stream);
    if (!ownedBy(state, ctx)) throw notFound('customer', customerId);
    // What the read models hold of the customer is complete before they are read.
    await this.settle(await this.events.headPosition(), catchUp);
    const owner = { _account: ctx.accountId, is_test: ctx.mode === 'test', customer: customerId };

    // 1. Before the key goes: the buyer identification of its issued invoices, kept apart (sealed under the master key).
    const fiscal = await this.retainFiscalBuyer(ctx, customerId, state.fields!, owner);
    // 2. The keys are destroyed (its own, and its hosted checkouts' sessions'): every personal value in
    //    their events reads as its placeholder from now on.
    const sessions = (await this.all<{ id: string }>('checkout_sessions', owner)).map((s) => s.id);
    await this.keys.erase(customerId);
    for (const session of sessions) await this.keys.erase(session);
    // 3. The erasure is recorded (the customers' read model and the feed's entry show the placeholders).
    const erased = await this.executor.execute(customerDecider, stream, (now) => ({ type: 'EraseCustomer' as const, owner: ctx, customerId, now, subjects: sessions }), ctx);
    let position = erased.position;
    // Its e-mail is free again (the same person may become a customer anew; a 409 would tell who was one).
    await this.claims.release(ctx, state.fields!.email, customerId).catch(() => undefined);
    // 4. It can no longer be charged: its subscriptions end now, its payment methods are removed.
    const canceled: string[] = [];
    for (const sub of await this.all<{ id: string; status: string }>('subscriptions', owner)) {
      if (FINAL_STATES.includes(sub.status as SubscriptionStatus)) continue;
      const r = await this.commands.execute<CancelSubscriptionCommand, { position: string | null }>(new CancelSubscriptionCommand(ctx, sub.id, 'now'));
      position = r.position ?? position;
      canceled.push(sub.id);
    }
    const removed: string[] = [];
    for (const pm of await this.all<{ id: string; _deleted?: boolean }>('payment_methods', owner)) {
      if (pm._deleted) continue;
      const r = await this.commands.execute<DeletePaymentMethodCommand, { position: string | null }>(new DeletePaymentMethodCommand(ctx, pm.id));
      position = r.position ?? position;
      removed.push(pm.id);
    }
    // 5. What the read models copied before the key went shows the placeholders, as a rebuild would.
    await this.settle(position, catchUp);
    const f = state.fields!;
    await scrubReadModels(this.reads, { account: ctx.accountId, isTest: ctx.mode === 'test' }, customerId, [f.email, f.name, f.phone, f.document_number], sessions);
    const after = (await this.executor.load(customerDecider, stream)).state;
    return {
      object: 'customer_erasure',
      id: customerId,
      erased_at: after.erasedAt ?? this.executor.now(ctx).toISOString(),
      subscriptions_canceled: canceled,
      payment_methods_removed: removed,
      fiscal_retention: fiscal,
      position,
    };
  }

  private async all<T extends { id: string }>(collection: string, where: Record<string, string | boolean>): Promise<T[]> {
    const out: T[] = [];
    let after: { value: string; id: string } | undefined;
    for (;;) {
      const page = await this.reads.find<T>(collection, { where, orderBy: { field: 'id', direction: 'asc' }, after, limit: PAGE });
      out.push(...page);
      if (page.length < PAGE) return out;
      after = { value: page[page.length - 1].id, id: page[page.length - 1].id };
    }
  }

  private async retainFiscalBuyer(
    ctx: CommandContext,
    customerId: string,
    fields: CustomerFields,
    owner: Record<string, string | boolean>,
  ): Promise<CustomerErasure['fiscal_retention']> {
    const issued = (await this.all<{ id: string; number: string | null; fiscal: { issued_at: string } | null }>('invoices', owner)).filter((i) => i.number && i.fiscal);
    const kept = await this.reads.get<FiscalBuyerDoc>(FISCAL_BUYERS, customerId);
    if (kept) return { kept: true, invoices: kept.invoices, kept_until: kept.kept_until, basis: FISCAL_RETENTION_BASIS };
    // Erased before (this is a run again, after the keep was purged at `kept_until`): the fields read as placeholders now; nothing to keep.
    if (await this.keys.isErased(customerId)) return { kept: false, invoices: [], kept_until: null, basis: null };
    if (issued.length === 0) return { kept: false, invoices: [], kept_until: null, basis: null };
    const last = issued.map((i) => i.fiscal!.issued_at).sort().at(-1)!;
    const until = new Date(last);
    until.setUTCFullYear(until.getUTCFullYear() + FISCAL_RETENTION_YEARS);
    const buyer: FiscalBuyer = { name: fields.name, email: fields.email, document_type: fields.document_type, document_number: fields.document_number, billing_address: fields.billing_address };
    const doc: FiscalBuyerDoc = {
      id: customerId,
      account: ctx.accountId,
      is_test: ctx.mode === 'test',
      invoices: issued.map((i) => i.id),
      sealed: this.sealer.seal(JSON.stringify(buyer)),
      kept_until: until.toISOString(),
      kept_at: this.executor.now(ctx).toISOString(),
      // Purged at `kept_until` by the scheduler (fiscal-purge.ts), on the customer's test clock if it has one.
      ...fiscalPurgeFields(ctx.accountId, fields.test_clock, until.toISOString()),
    };
    await this.reads.swap(FISCAL_BUYERS, customerId, null, { ...doc });
    return { kept: true, invoices: doc.invoices, kept_until: doc.kept_until, basis: FISCAL_RETENTION_BASIS };
  }
}
