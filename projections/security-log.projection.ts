import type { RecordedEvent } from '#event-store/event-store.port.js';
import type { Projection } from '#projection-runtime/projection.js';
import type { SecurityLogEntry } from '#team/read-models/member.read-model.js';

/** What the security log shows: sign-in facts, every team change and every API key change. */
export const isSecurityLogEvent = (e: Pick<RecordedEvent, 'type' | 'streamId'>) =>
  (e.streamId.startsWith('security-') && e.type.startsWith('security.')) ||
  (e.streamId.startsWith('team-') && (e.type.startsWith('member.') || e.type.startsWith('team.'))) ||
  (e.streamId.startsWith('account-') && e.type.startsWith('account.api_key_'));

/** Fields of an event's data that are the line's columns, not its detail. */
const COLUMNS = new Set(['account_id', 'member', 'email', 'by', 'address']);
/** Never shown, even as ids of secrets: the key projection's inputs. */
const NEVER = new Set(['secret_hash', 'key', 'secret']);

function detailOf(data: Record<string, unknown>): SecurityLogEntry['detail'] {
  const out: SecurityLogEntry['detail'] = {};
  for (const [k, v] of Object.entries(data)) {
    if (COLUMNS.has(k) || NEVER.has(k) || k.endsWith('_at')) continue;
    if (v === null || ['string', 'number', 'boolean'].includes(typeof v)) out[k] = v as string | number | boolean | null;
    else if (v && typeof v === 'object' && !Array.isArray(v)) {
      // A nested key record (a rolled key's new key): its id and mode only.
      const o = v as Record<string, unknown>;
      if (typeof o.key_id === 'string') out[`${k}_id`] = o.key_id;
    }
  }
  return out;
}

/**
 * The security log of every account, one line per event, newest first on the page: sign-ins and
 * their failures and lockouts, invitations, role changes, key creations, rolls and revocations.
 * Kept as long as the events are (they are the record); exportable as CSV from the dashboard.
 */
export const securityLogProjection: Projection<SecurityLogEntry> = {
  name: 'security_log',
  collection: 'security_log',
  collections: [{ name: 'security_log', indexes: [{ fields: ['account_id', '_position'] }] }],
  documentIds: (e) => (isSecurityLogEvent(e) && typeof e.data.account_id === 'string' ? [e.id] : []),
  project(_doc, event, id) {
    const data = event.data as Record<string, unknown>;
    const meta = (event.metadata ?? {}) as Record<string, unknown>;
    const actor = (meta.actor ?? null) as { member?: string } | null;
    const str = (v: unknown) => (typeof v === 'string' ? v : null);
    return {
      id,
      account_id: String(data.account_id),
      at: str(meta.occurred_at) ?? new Date(0).toISOString(),
      type: event.type,
      member: str(data.member),
      email: str(data.email),
      actor: str(data.by) ?? actor?.member ?? null,
      address: str(data.address) ?? str(meta.address),
      detail: detailOf(data),
    };
  },
};
