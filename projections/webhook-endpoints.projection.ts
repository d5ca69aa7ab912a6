import {
  rotateSecrets,
  secretHolder,
  type WebhookEndpointCreated,
  type WebhookEndpointEvent,
  type WebhookEndpointFields,
} from '#webhooks/domain/webhook-endpoint.decider.js';
import { eventIdFromUuid } from '#shared/ids.js';
import type { Projection } from '#projection-runtime/projection.js';
import type { WebhookEndpointDoc } from '#webhooks/read-models/webhook-endpoint.read-model.js';
import { newOwnedDoc, TENANT_INDEXES } from '#platform/owned-doc.js';

/** Webhook endpoints as GET /v1/webhook_endpoints serves them (streams `webhookendpoint-we_…`), secrets kept internal. */
export const webhookEndpointsProjection: Projection<WebhookEndpointDoc> = {
  name: 'webhook_endpoints',
  category: 'webhookendpoint',
  object: 'webhook_endpoint',
  collection: 'webhook_endpoints',
  collections: [{ name: 'webhook_endpoints', indexes: [...TENANT_INDEXES, { fields: ['status', '_deleted', '_created'] }] }],
  documentIds: (e) => (e.type.startsWith('webhook_endpoint.') && e.streamId.startsWith('webhookendpoint-') ? [String(e.data.id)] : []),
  project(doc, event) {
    const e = event as unknown as WebhookEndpointEvent;
    switch (e.type) {
      case 'webhook_endpoint.created': {
        const { account_id, created_at, id, is_test, url, enabled_events, description, status, meta_data }: WebhookEndpointCreated['data'] = e.data;
        const fields: WebhookEndpointFields = { url, enabled_events, description, status, meta_data };
        return {
          ...newOwnedDoc('webhook_endpoint', { id, account_id, is_test, created_at }, fields),
          // The vault id of the sealed secret (a plain `secret` only from an event written before sealing).
          _secrets: [{ ...secretHolder(e.data), expires_at: null }],
          _created_seq: event.position,
          _created_event: eventIdFromUuid(event.id),
        } as WebhookEndpointDoc;
      }
      case 'webhook_endpoint.updated':
        return doc && { ...doc, ...e.data.changes };
      case 'webhook_endpoint.secret_rotated':
        return doc && { ...doc, _secrets: rotateSecrets(doc._secrets, e.data) };
      case 'webhook_endpoint.disabled':
        return doc && { ...doc, status: 'disabled' };
      case 'webhook_endpoint.deleted':
        return doc && { ...doc, _deleted: true };
      default:
        return doc;
    }
  },
};
