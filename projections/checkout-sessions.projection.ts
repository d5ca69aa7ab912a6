import {
  type CheckoutSessionCreated,
  type CheckoutSessionEvent,
  applyCheckoutSessionEvent,
  checkoutSessionDeadline,
} from '#checkout/domain/checkout-session.decider.js';
import { DEADLINE_INDEX, deadlineFields } from '#shared/deadlines.js';
import { newOwnedDoc, TENANT_INDEXES } from '#platform/owned-doc.js';
import type { Projection } from '#projection-runtime/projection.js';
import type { CheckoutSessionDoc } from '#checkout/read-models/checkout-session.read-model.js';

/**
 * Checkout sessions as GET /v1/checkout_session/{id} serves them (flat: the session's fields with
 * `url` among them), plus their deadline for the scheduler (`expire` at `expires_at` while open;
 * `forget_buyer` 30 days after a session never tied to a customer expired: docs/personal-data.md).
 * Events of the session stream outside `checkout_session.*` (identification, payment progress) are
 * internal: they change no public field but `last_payment`, and stay out of the feed.
 */
export const checkoutSessionsProjection: Projection<CheckoutSessionDoc> = {
  name: 'checkout_sessions',
  category: 'checkoutsession',
  object: 'checkout_session',
  collection: 'checkout_sessions',
  collections: [
    {
      name: 'checkout_sessions',
      indexes: [...TENANT_INDEXES, { fields: ['_account', 'is_test', 'status', '_created'] }, { fields: ['_account', 'is_test', 'collection', '_created'] }, DEADLINE_INDEX],
    },
  ],
  documentIds: (e) => (e.streamId.startsWith('checkoutsession-') ? [e.streamId.slice('checkoutsession-'.length)] : []),
  project(doc, event) {
    const e = event as unknown as CheckoutSessionEvent;
    let next: CheckoutSessionDoc;
    if (e.type === 'checkout_session.created') {
      const { account_id, created_at, id, is_test, _lines, ...fields }: CheckoutSessionCreated['data'] = e.data;
      next = newOwnedDoc('checkout_session', { id, account_id, is_test, created_at }, fields) as unknown as CheckoutSessionDoc;
      // The spec gives the session ISO 8601 timestamps (not the `YYYY-MM-DD HH:MM:SS` of other resources).
      next.created_date = fields.created_date;
    } else {
      if (!doc) return doc;
      next = { ...doc, ...applyCheckoutSessionEvent(doc, e) };
      delete (next as Record<string, unknown>)._lines;
    }
    return { ...next, ...deadlineFields(next.test_clock, checkoutSessionDeadline(next)) };
  },
};
