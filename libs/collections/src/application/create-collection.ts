import { Inject } from '@nestjs/common';
import { ownedBy } from '#shared/owner.js';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { Config } from '#platform/config.js';
import { CONFIG } from '#platform/tokens.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { newId } from '#shared/ids.js';
import { invalidParam } from '#shared/errors.js';
import { currency as currencyOf } from '#shared/money.js';
import type { MetaData } from '#shared/meta-data.js';
import { customerDecider, customerStream, refuseErased } from '#customers/domain/customer.decider.js';
import { notFound } from '#shared/errors.js';
import { TestClockTime } from '#test-clocks/application/test-clock-time.js';
import { type CollectionMethod, type InvoiceRetentions, type InvoiceSettings, collectionDecider, collectionStream } from '../domain/collection.decider.js';
import { CollectionLines, type ItemRequest } from './collection-lines.js';
import { PaymentFollowUps } from './payment-follow-ups.js';
import { laterPosition } from '#event-store/positions.js';

export interface CreateCollectionBody {
  customer: string;
  items: ItemRequest[];
  currency?: string;
  discounts?: Array<{ code: string; amount?: string; percent?: string }>;
  collection_method?: CollectionMethod;
  days_until_due?: number;
  description?: string;
  collection_rule_id?: string;
  invoice_settings?: Partial<InvoiceSettings>;
  invoice_retentions?: Partial<InvoiceRetentions>;
  invoicing?: 'create' | 'after';
  meta_data?: MetaData;
}

export class CreateCollectionCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly body: CreateCollectionBody,
  ) {}
}

/** The hosted page of a collection: `{checkout_url}/col/<collection_id>`. */
export const collectionCheckoutUrl = (config: Config, collectionId: string) => `${config.checkoutUrl}/col/${collectionId}`;

/**
 * A standalone collection: one-time items for a customer, no subscription. `collect` (default) sends
 * it with its hosted page; `charge` leaves it pending for `POST /v1/collections/{id}/pay`.
 */
@CommandHandler(CreateCollectionCommand)
export class CreateCollectionHandler implements ICommandHandler<CreateCollectionCommand, CommandResult> {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly lines: CollectionLines,
    @Inject(CONFIG) private readonly config: Config,
    private readonly clocks: TestClockTime,
    private readonly followUps: PaymentFollowUps,
  ) {}

  async execute({ ctx: request, body }: CreateCollectionCommand): Promise<CommandResult> {
    const customer = await this.executor.load(customerDecider, customerStream(body.customer));
    const c = customer.state;
    if (!ownedBy(c, request)) throw notFound('customer', body.customer, 'customer');
    // An erased customer is collected from no more (409 customer_erased; docs/personal-data.md).
    refuseErased(c, body.customer);
    // A customer on a test clock: the collection lives on it too, decided at its time.
    const testClock = c.fields!.test_clock ?? null;
    const ctx = await this.clocks.contextFor(request, testClock);
    const method = body.collection_method ?? 'collect';
    if (method === 'charge' && body.days_until_due !== undefined) throw invalidParam('days_until_due', 'days_until_due is only allowed for collection_method charge'); // the spec's text, word for word
    const now = this.executor.now(ctx);
    const firstPrice = body.items?.[0]?.price ? await this.lines.priceSnapshot(ctx, body.items[0].price, 'items[0][price]') : null;
    const currency = (body.currency ?? firstPrice?.price.currency ?? 'COP').toUpperCase();
    if (!currencyOf(currency)) throw invalidParam('currency', `currency must be an ISO 4217 currency code (got ${body.currency})`);
    const lines = await this.lines.fromRequests(ctx, body.items, currency, now, { oneTimeOnly: true });
    const collectionId = newId('col');
    const { position } = await this.executor.execute(
      collectionDecider,
      collectionStream(collectionId),
      (at) => ({
        type: 'CreateCollection' as const,
        owner: ctx,
        collectionId,
        input: {
          customer: { id: body.customer, billing_address: c.fields!.billing_address },
          subscription: null,
          currency,
          lines,
          discounts: (body.discounts ?? []).map((d) => ({ id: newId('sd'), code: d.code, amount: d.amount ?? null, percent: d.percent ?? null })),
          collection_method: method,
          days_until_due: method === 'collect' ? body.days_until_due ?? null : null,
          description: body.description ?? null,
          meta_data: body.meta_data ?? {},
          invoice_settings: { invoice_document_id: body.invoice_settings?.invoice_document_id ?? null, invoice_cost_center: body.invoice_settings?.invoice_cost_center ?? null },
          invoice_retentions: { reteica: body.invoice_retentions?.reteica ?? null, retefte: body.invoice_retentions?.retefte ?? null },
          collection_rule_id: body.collection_rule_id ?? null,
          billing_reason: 'manual',
          checkout_url: collectionCheckoutUrl(this.config, collectionId),
          test_clock: testClock,
          invoicing: body.invoicing ?? null,
        },
        now: at,
      }),
      ctx,
    );
    return { id: collectionId, position: laterPosition(position, await this.followUps.collectionCreated(ctx, collectionId)) };
  }
}
