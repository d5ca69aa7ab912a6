import type { OwnedDoc } from '#platform/read-models.js';
import type { SigningSecret, WebhookEndpointFields } from '../domain/webhook-endpoint.decider.js';

/** A webhook endpoint as the `webhook_endpoints` read model holds it, its secrets internal. */
export type WebhookEndpointDoc = OwnedDoc &
  WebhookEndpointFields & {
    object: 'webhook_endpoint';
    created_date: string;
    /** The signing secrets (internal: never served; the delivery worker signs with them). */
    _secrets: SigningSecret[];
    /** Global position of `webhook_endpoint.created`: delivery starts with the feed's next event. */
    _created_seq: string;
    _created_event: string;
  };
