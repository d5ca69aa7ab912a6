// The audit chain's hashing (docs/audit.md): plain JavaScript so that the SQLite event store's writer
// thread (libs/shared/src/sqlite-writer.worker.mjs) computes it inside the append's transaction, and
// the TypeScript code (domain/chain.ts, the verifier) the same way. Pure: no clock, no I/O.
import { createHash, hash } from 'node:crypto';
import canonicalize from 'canonicalize';

/** The `prev` of an account's first entry. */
export const GENESIS = '0'.repeat(64);
/** The chain of the events without `metadata.account_id` (platform-level events). */
export const PLATFORM_ACCOUNT = '_platform';
/**
 * Streams outside the chain: the idempotency keys' records (libs/http/src/idempotency.ts), technical
 * rows that the pruner deletes by design after a day, no fact of any account; and the chain's own
 * streams on a store that keeps it in streams.
 */
export const UNCHAINED_STREAM_PREFIXES = ['idempotency-', 'audit_chain-'];
/**
 * Where a store without multi-stream transactions keeps the chain (libs/audit/src/follower-chain.ts):
 * one stream per account, never chained itself (above).
 */
export const CHAIN_STREAM_PREFIX = 'audit_chain-';

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

/** RFC 8785 (JCS) canonical JSON of a value (undefined: a value JSON cannot hold, as JSON.stringify). */
export function canonicalJson(value) {
  return canonicalize(value);
}

/**
 * The RFC 8785 (JCS) canonical JSON an event's hash is taken over: the object
 * { data, id (evt_…), metadata, revision, stream, time (metadata.occurred_at), type }, put together
 * from the canonical JSON of its data and metadata (the keys in JCS order already), so that a writer
 * holding those texts needs no second serialisation.
 */
export function canonicalEventOf(id, type, streamId, revision, time, canonicalData, canonicalMetadata) {
  return `{"data":${canonicalData},"id":${JSON.stringify(publicEventId(id))},"metadata":${canonicalMetadata},"revision":${revision},"stream":${canonicalize(streamId)},"time":${canonicalize(time ?? null)},"type":${canonicalize(type)}}`;
}

/** The canonical JSON of a stored (or recorded) event. */
export function canonicalEvent(event) {
  return canonicalEventOf(event.id, event.type, event.streamId, event.revision, event.metadata?.occurred_at, canonicalize(event.data), canonicalize(event.metadata));
}

const sha256Hex = (text) => createHash('sha256').update(text, 'utf8').digest('hex');

/** SHA-256 (hex) of the event's canonical JSON. */
export function eventHash(event) {
  return sha256Hex(canonicalEvent(event));
}

/** SHA-256 (hex) of canonicalEventOf(…): for a writer holding the canonical texts of data and metadata. */
export function eventHashOf(id, type, streamId, revision, time, canonicalData, canonicalMetadata) {
  return sha256Hex(canonicalEventOf(id, type, streamId, revision, time, canonicalData, canonicalMetadata));
}

/** eventHashOf as the 32 bytes (the SQLite writer keeps and stores bytes). */
export function eventHashBytesOf(id, type, streamId, revision, time, canonicalData, canonicalMetadata) {
  return hash('sha256', canonicalEventOf(id, type, streamId, revision, time, canonicalData, canonicalMetadata), 'buffer');
}

/** chainHash on bytes: SHA-256 of the 64 bytes prev ‖ event_hash. */
export function chainHashBytes(prev, eventHashBytes) {
  return hash('sha256', Buffer.concat([prev, eventHashBytes], 64), 'buffer');
}

/** SHA-256 (hex) over the 64 bytes prev ‖ event_hash (both hex-decoded). */
export function chainHash(prev, eventHashHex) {
  return createHash('sha256').update(Buffer.from(prev, 'hex')).update(Buffer.from(eventHashHex, 'hex')).digest('hex');
}
