import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { Inject } from '@nestjs/common';
import { type Owner, ReadModels } from '#platform/read-models.js';
import { EVENT_STORE } from '#platform/tokens.js';
import type { EventStore } from '#event-store/event-store.port.js';
import { invalidParam, notFound } from '#shared/errors.js';
import type { FeedEntry } from '#events/read-models/event.read-model.js';
import { toPublic } from '#projection-runtime/projection.js';
import { projectSubscription, type SubscriptionDoc } from '../read-models/subscription.read-model.js';
import { subscriptionStream } from '../domain/subscription.decider.js';

export class GetSubscriptionQuery {
  constructor(
    readonly owner: Owner,
    readonly id: string,
    /** An ISO 8601 time or an `evt_` id: the subscription as it stood then. */
    readonly asOf?: string,
  ) {}
}

/**
 * The subscription from its read model, or with `as_of` rebuilt from its own stream: the same pure
 * projector folded over the events up to that time (or up to that event, wherever it was recorded:
 * an event of one of its collections cuts at that event's place in the global order).
 */
@QueryHandler(GetSubscriptionQuery)
export class GetSubscriptionHandler implements IQueryHandler<GetSubscriptionQuery, SubscriptionDoc> {
  constructor(
    private readonly readModels: ReadModels,
    @Inject(EVENT_STORE) private readonly events: EventStore,
  ) {}

  async execute({ owner, id, asOf }: GetSubscriptionQuery): Promise<SubscriptionDoc> {
    if (asOf === undefined) return this.readModels.get<SubscriptionDoc>('subscriptions', 'subscription', id, owner);
    const stream = await this.events.readStream(subscriptionStream(id));
    let include: (e: (typeof stream)[number]) => boolean;
    if (asOf.startsWith('evt_')) {
      const entry = await this.readModels.store.get<FeedEntry>('events', asOf);
      if (!entry || entry._account !== owner.accountId || entry.is_test !== (owner.mode === 'test')) throw invalidParam('as_of', `No such event: '${asOf}'`);
      include = (e) => e.position <= entry._seq;
    } else {
      const at = Date.parse(asOf);
      if (!/^\d{4}-\d{2}-\d{2}/.test(asOf) || Number.isNaN(at)) throw invalidParam('as_of', 'as_of must be an ISO 8601 timestamp or an event id (evt_…)');
      include = (e) => Date.parse(e.metadata.occurred_at) <= at;
    }
    let doc: SubscriptionDoc | null = null;
    for (const e of stream) if (include(e)) doc = projectSubscription(doc, e);
    if (!doc || doc._account !== owner.accountId || doc.is_test !== (owner.mode === 'test')) {
      if (stream.length && stream[0].metadata.account_id === owner.accountId && stream[0].metadata.mode === owner.mode) {
        throw notFound('subscription', `${id}' as of '${asOf}`);
      }
      throw notFound('subscription', id);
    }
    return toPublic(doc);
  }
}
