// The audit chain's hashing (docs/audit.md): plain JavaScript so that the SQLite event store's writer
// thread (libs/shared/src/sqlite-writer.worker.mjs) computes it inside the append's transaction, and
// the TypeScript code (domain/chain.ts, the verifier) the same way. Pure: no clock, no I/O.
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/** The `prev` of an account's first entry. */
export const GENESIS = '0'.repeat(64);
/** The chain of the events without `metadata.account_id` (platform-level events). */
export const PLATFORM_ACCOUNT = '_platform';
/**
 * Streams outside the chain: the idempotency keys' records (libs/http/src/idempotency.ts), technical
 * rows that the pruner deletes by design after a day; they are no fact of any account.
 */
export const UNCHAINED_STREAM_PREFIXES = ['idempotency-'];

/** Whether a stream's events are chained. */
export function isChained(streamId) {
  for (const prefix of UNCHAINED_STREAM_PREFIXES) if (streamId.startsWith(prefix)) return false;
  return true;
}

/** The account whose chain an event joins: its `metadata.account_id`, or PLATFORM_ACCOUNT. */
export function chainAccount(metadata) {
  const account = metadata && typeof metadata.account_id === 'string' ? metadata.account_id : '';
  return account || PLATFORM_ACCOUNT;
}

/** `evt_` + the UUID's 32 hex digits (libs/shared/src/ids.ts eventIdFromUuid). */
function publicEventId(id) {
  return id.startsWith('evt_') ? id : `evt_${id.replace(/-/g, '').toLowerCase()}`;
}

/** The RFC 8785 (JCS) canonical JSON an event's hash is taken over. */
export function canonicalEvent(event) {
  return canonicalize({
    id: publicEventId(event.id),
    type: event.type,
    stream: event.streamId,
    revision: event.revision,
    time: event.metadata?.occurred_at ?? null,
    data: event.data,
    metadata: event.metadata,
  });
}

/** SHA-256 (hex) of the event's canonical JSON. */
export function eventHash(event) {
  return createHash('sha256').update(canonicalEvent(event), 'utf8').digest('hex');
}

/** SHA-256 (hex) over the 64 bytes prev ‖ event_hash (both hex-decoded). */
export function chainHash(prev, eventHashHex) {
  return createHash('sha256').update(Buffer.from(prev, 'hex')).update(Buffer.from(eventHashHex, 'hex')).digest('hex');
}
