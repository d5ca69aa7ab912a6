import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { ReadModels } from '#platform/read-models.js';
import type { CommandContext } from '#platform/command-context.js';
import { invalidParam, notFound } from '#shared/errors.js';
import { SystemClock } from '#shared/clock.js';
import type { FeedEntry } from '#events/read-models/event.read-model.js';
import type { WebhookEndpointDoc } from '../read-models/webhook-endpoint.read-model.js';
import { deliveryDecider } from '../domain/delivery.decider.js';
import { applyDelivery, blankDelivery, type DeliveryDoc, DeliveryLog } from './delivery-log.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';

/** The most failed deliveries one call re-sends ("every failed event since"); call again for more. */
export const RESEND_LIMIT = 1000;

export class ResendEventsCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly endpointId: string,
    readonly body: { event?: string; failed_since?: string },
  ) {}
}

export interface ResendResult {
  object: 'webhook_resend';
  webhook_endpoint: string;
  events: string[];
}

/**
 * Re-sends on demand: one event (`event`, any event of the endpoint's account and mode), or every
 * event whose delivery to this endpoint failed for good and that was created at or after
 * `failed_since`. Each starts a fresh retry schedule; the delivery log keeps counting attempts.
 */
@CommandHandler(ResendEventsCommand)
export class ResendEventsHandler implements ICommandHandler<ResendEventsCommand, ResendResult> {
  private readonly wall = new SystemClock();

  constructor(
    private readonly readModels: ReadModels,
    private readonly log: DeliveryLog,
    private readonly dispatcher: WebhookDispatcher,
  ) {}

  async execute({ ctx, endpointId, body }: ResendEventsCommand): Promise<ResendResult> {
    const endpoint = await this.readModels.find<WebhookEndpointDoc>('webhook_endpoints', endpointId, ctx);
    if (!endpoint) throw notFound('webhook_endpoint', endpointId);
    if ((body.event === undefined) === (body.failed_since === undefined)) {
      throw invalidParam('event', 'Give either event (one event to re-send) or failed_since (every failed event since then)');
    }
    const now = this.wall.now();
    let deliveries: DeliveryDoc[];
    if (body.event !== undefined) {
      const entry = await this.readModels.store.get<FeedEntry>('events', body.event);
      if (!entry || entry._account !== ctx.accountId || entry.is_test !== (ctx.mode === 'test')) throw notFound('event', body.event, 'event');
      const existing = await this.log.get(endpointId, entry._seq);
      deliveries = [existing ?? blankDelivery(endpointId, entry, now)];
    } else {
      const since = Date.parse(body.failed_since!);
      if (!Number.isFinite(since)) throw invalidParam('failed_since', 'failed_since must be an ISO 8601 timestamp');
      deliveries = await this.log.failedSince(endpointId, new Date(since).toISOString(), RESEND_LIMIT);
    }
    for (const d of deliveries) await this.log.save(applyDelivery(d, deliveryDecider.decide({ type: 'ResendDelivery', now }, d), now));
    this.dispatcher.wake();
    return { object: 'webhook_resend', webhook_endpoint: endpointId, events: deliveries.map((d) => d.event) };
  }
}
