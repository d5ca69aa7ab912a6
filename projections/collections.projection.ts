import {
  type CollectionEvent,
  type CollectionFields,
  applyCollectionEvent,
  collectionDeadline,
  STALE_ATTEMPT_MS,
} from '#collections/domain/collection.decider.js';
import { currency as currencyOf, formatAmount } from '#shared/money.js';
import type { Projection } from '#projection-runtime/projection.js';
import type { CollectionDoc } from '#collections/read-models/collection.read-model.js';
import { newOwnedDoc, TENANT_INDEXES } from '#platform/owned-doc.js';
import { DEADLINE_INDEX, deadlinesFields } from '#shared/deadlines.js';

const ASKING = ['pending', 'past_due', 'uncollectible', 'processing'];
function amountDue(f: CollectionFields): string {
  if (ASKING.includes(f.status)) return f.total;
  const cur = currencyOf(f.currency);
  return cur ? formatAmount('0', cur) : '0';
}

/**
 * How long a payment may await the customer (PSE redirect, cash voucher) before it is given up:
 * the scheduler records it as not completed and the collection can be paid again.
 */
export const PROCESSING_TIMEOUT_MS = 24 * 3_600_000;

/**
 * An attempt in flight (started, no outcome) longer than STALE_ATTEMPT_MS: its process stopped between
 * starting the charge and recording the gateway's answer. The scheduler asks the gateway again with the
 * same charge id (it answers the first outcome, never charging twice) and records it.
 */
function staleAttemptDeadline(doc: CollectionDoc): { kind: string; at: string } | null {
  if (!doc.collecting || !doc._collecting_since) return null;
  return { kind: 'reconcile', at: new Date(Date.parse(doc._collecting_since) + STALE_ATTEMPT_MS).toISOString() };
}

function processingDeadline(doc: CollectionDoc): { kind: string; at: string } | null {
  if (doc.status !== 'processing' || !doc._processing_since) return null;
  return { kind: 'processing_timeout', at: new Date(Date.parse(doc._processing_since) + PROCESSING_TIMEOUT_MS).toISOString() };
}

/** Collections as GET /v1/collections serves them: every event of a `collection-` stream; plus their next deadline. */
export const collectionsProjection: Projection<CollectionDoc> = {
  name: 'collections',
  category: 'collection',
  object: 'collection',
  collection: 'collections',
  collections: [
    {
      name: 'collections',
      indexes: [
        ...TENANT_INDEXES,
        { fields: ['_account', 'is_test', 'customer', '_created'] },
        { fields: ['_account', 'is_test', 'subscription', '_created'] },
        { fields: ['_account', 'is_test', 'status', '_created'] },
        DEADLINE_INDEX,
      ],
    },
  ],
  documentIds: (e) => (e.streamId.startsWith('collection-') ? [e.streamId.slice('collection-'.length)] : []),
  project(doc, event) {
    const e = event as unknown as CollectionEvent;
    let next: CollectionDoc | null;
    if (e.type === 'collection.created') {
      const { id, account_id, is_test, created_at } = e.data;
      next = newOwnedDoc('collection', { id, account_id, is_test, created_at }, applyCollectionEvent(null as unknown as CollectionFields, e)) as CollectionDoc;
    } else {
      if (!doc) return doc;
      next = { ...doc, ...applyCollectionEvent(doc, e) };
    }
    if (e.type === 'collection.payment_failed') {
      next.last_payment_error = { code: e.data.failure_code, message: e.data.failure_message, decline_code: e.data.decline_code, charge: e.data.charge };
    } else if (e.type === 'collection.paid') next.last_payment_error = null;
    else next.last_payment_error ??= null;
    next.amount_due = amountDue(next);
    next._processing_since = next.status === 'processing' ? (e.type === 'charge.pending' ? event.metadata.occurred_at : next._processing_since ?? null) : null;
    next._collecting_since = next.collecting ? (e.type === 'transaction.created' || e.type === 'charge.created' ? event.metadata.occurred_at : next._collecting_since ?? null) : null;
    return { ...next, ...deadlinesFields(next.test_clock, [collectionDeadline(next), processingDeadline(next), staleAttemptDeadline(next)]) };
  },
};
