import {
  type CollectionEvent,
  type CollectionFields,
  applyCollectionEvent,
  collectionDeadline,
} from '../libs/collections/src/domain/collection.decider.js';
import type { OwnedDoc } from '../libs/platform/src/read-models.js';
import type { Projection } from './runtime/projection.js';
import { newOwnedDoc, TENANT_INDEXES } from './owned-doc.js';
import { DEADLINE_INDEX, type DeadlineFields, deadlineFields } from './deadlines.js';

export type CollectionDoc = OwnedDoc & CollectionFields & DeadlineFields & { object: 'collection'; created_date: string };

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
    return { ...next, ...deadlineFields(next.test_clock, collectionDeadline(next)) };
  },
};
