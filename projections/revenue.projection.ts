import type { Projection } from '#projection-runtime/projection.js';
import type { DocumentWrite } from '#read-store/read-store.port.js';
import {
  REVENUE_COLLECTION,
  REVENUE_ENTRIES,
  type RevenueDoc,
  projectRevenue,
  revenueDocIds,
  revenueEntries,
} from '#analytics/read-models/revenue.read-model.js';

/**
 * Revenue analytics (docs/revenue-analytics.md): each subscription's MRR, each customer's counted
 * subscriptions, each collection's amount and trouble, and per day of an account the sum of what
 * changed; each event's changes also as an entry (the movements list, and `as_of` inside a day).
 * Reports read days and entries, never the subscriptions: the figures at any past moment are the
 * sums of the days before it and of that day's entries up to it.
 */
export const revenueProjection: Projection<RevenueDoc> = {
  name: 'revenue',
  collection: REVENUE_COLLECTION,
  collections: [
    { name: REVENUE_COLLECTION, indexes: [{ fields: ['_account', 'is_test', '_kind', 'day'] }] },
    {
      name: REVENUE_ENTRIES,
      indexes: [
        { fields: ['_account', 'is_test', 'currency', 'day', 'at'] },
        // The movements list: every movement, or one type, newest first.
        { fields: ['_account', 'is_test', 'currency', '_moved', 'at'], sparseOn: '_moved' },
        { fields: ['_account', 'is_test', 'currency', 'type', 'at'], sparseOn: 'type' },
      ],
    },
  ],
  documentIds: revenueDocIds,
  project: (doc, event, id, related) => projectRevenue(doc, event, id, related ?? new Map()) as RevenueDoc | null,
  derive(event, after, _before, related): DocumentWrite[] {
    // Once per event: from its day's document (the last of its documents).
    if (!after || after._kind !== 'day') return [];
    return revenueEntries(event, related ?? new Map()).map((entry) => ({
      collection: REVENUE_ENTRIES,
      id: entry.id,
      doc: { ...entry, _moved: entry.type ? true : null },
    }));
  },
};
