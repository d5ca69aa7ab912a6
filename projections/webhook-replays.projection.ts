import type { WebhookReplayCreated, WebhookReplayEvent } from '#webhooks/domain/webhook-replay.decider.js';
import type { Projection } from '#projection-runtime/projection.js';
import { REPLAY_COLLECTION, REPLAYS, type WebhookReplayDoc } from '#webhooks/read-models/webhook-replay.read-model.js';
import { newOwnedDoc } from '#platform/owned-doc.js';

/** Replays to webhook endpoints (streams `webhookreplay-whr_…`), as GET /v1/webhook_endpoints/{id}/replays lists them. Not in the feed. */
export const webhookReplaysProjection: Projection<WebhookReplayDoc> = {
  name: REPLAYS,
  collection: REPLAYS,
  collections: [REPLAY_COLLECTION],
  documentIds: (e) => (e.type.startsWith('webhook_replay.') && e.streamId.startsWith('webhookreplay-') ? [String(e.data.id)] : []),
  project(doc, event) {
    const e = event as unknown as WebhookReplayEvent;
    switch (e.type) {
      case 'webhook_replay.created': {
        const { id, account_id, is_test, created_at, endpoint, from, to, types }: WebhookReplayCreated['data'] = e.data;
        return {
          ...newOwnedDoc('webhook_replay', { id, account_id, is_test, created_at }, {
            endpoint,
            from: from.value,
            to: to?.value ?? null,
            types,
            status: 'running' as const,
            created: created_at,
            completed_at: null,
            canceled_at: null,
          }),
          _endpoint: endpoint,
          _from_seq: from.seq,
          _from_event: from.seq === null ? null : from.value,
          _from_time: from.time,
          _to_seq: to?.seq ?? null,
          _to_time: to?.time ?? null,
          _until_seq: event.position,
          _delivered: null,
        } as WebhookReplayDoc;
      }
      case 'webhook_replay.canceled':
        return doc && { ...doc, status: 'canceled', canceled_at: e.data.canceled_at };
      case 'webhook_replay.completed':
        return doc && { ...doc, status: 'completed', completed_at: e.data.completed_at, _delivered: e.data.delivered };
      default:
        return doc;
    }
  },
};
