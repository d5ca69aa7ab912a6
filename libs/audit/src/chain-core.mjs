// The audit chain's hashing (docs/audit.md): plain JavaScript so that the SQLite event store's writer
// thread (libs/shared/src/sqlite-writer.worker.mjs) computes it inside the append's transaction, and
// the TypeScript code (domain/chain.ts, the verifier) the same way. Pure: no clock, no I/O.
import { createHash, hash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { configure } from 'safe-stable-stringify';

/**
 * The writers' canonical JSON: JSON.stringify's output with every object's keys sorted (UTF-16 code
 * units, as RFC 8785). For every value JSON holds it equals RFC 8785's canonical form as the
 * `canonicalize` package writes it (a property test: libs/audit/src/sorted-json.spec.ts), about three
 * times faster; the verifiers (`audit verify`, scripts/verify-audit-export.mjs) use `canonicalize`,
 * so every hash a writer makes is checked by the other implementation. Values JSON does not hold are
 * written as JSON.stringify writes them (undefined left out, NaN as null).
 */
const sorted = configure({ circularValue: Error, bigint: false });
/** A lone surrogate as JSON.stringify escapes it (an odd run of backslashes before \\uD800–\\uDFFF; pairs are written raw). */
const LONE_SURROGATE = /(?<!\\)(?:\\\\)*\\u[dD][89a-fA-F][0-9a-fA-F]{2}/;
/** RFC 8785 refuses lone surrogates (as `canonicalize` does): so do the writers, the event is then not stored. */
function sortedJson(value) {
  const text = sorted(value);
  // Most texts have no escape at all: the regular expression runs only where one may be.
  if (text !== undefined && text.includes('\\u') && LONE_SURROGATE.test(text)) throw new Error('Lone surrogate is not allowed');
  return text;
}

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
  return `{"data":${canonicalData},"id":${JSON.stringify(publicEventId(id))},"metadata":${canonicalMetadata},"revision":${revision},"stream":${jcs(streamId)},"time":${jcs(time ?? null)},"type":${jcs(type)}}`;
}

const SURROGATE = /[\uD800-\uDFFF]/;
/** canonicalize(value), sparing its per-character scan for a string without any surrogate (then it is JSON.stringify's). */
function jcs(value) {
  return typeof value === 'string' && !SURROGATE.test(value) ? JSON.stringify(value) : canonicalize(value);
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

/**
 * What a writer needs to chain an event, worked out before its write transaction by the appending
 * thread, from the objects whose JSON it stores: [canonical data, canonical metadata, the event's hash
 * (its 32 bytes as a latin1 string) when its revision is known (an append with an expected revision), else null,
 * metadata.occurred_at, the chain's account]. When the hash is made, the texts and the time are left
 * out (null): the writer needs only the hash, and the message to a writer thread stays as small as
 * the append's own. Null when it cannot be prepared: the writer then works from the stored texts. The
 * same canonical texts as those stored texts give (JSON.stringify, then sorted keys), made without
 * parsing them again, outside the transaction that holds the write lock.
 */
export function prepareChain(id, type, streamId, revision, data, metadata, metadataText) {
  try {
    const canonicalData = sortedJson(data);
    const canonicalMetadata = canonicalMetadataOf(metadata, metadataText);
    if (canonicalData === undefined || canonicalMetadata === undefined) return null;
    const time = typeof metadata?.occurred_at === 'string' ? metadata.occurred_at : undefined;
    if (metadata?.occurred_at !== undefined && time === undefined) return null; // unusual: left to the writer
    const account = chainAccount(metadata);
    if (revision === null) return [canonicalData, canonicalMetadata, null, time ?? null, account];
    // The hash as a 32-character latin1 string: made without a Buffer, and a string crosses to the
    // writer thread at a third of a typed array's cost (the writer makes its bytes again).
    return [null, null, hash('sha256', canonicalEventOf(id, type, streamId, revision, time, canonicalData, canonicalMetadata), 'latin1'), null, account];
  } catch {
    return null;
  }
}

/**
 * The events of one command carry the same metadata (one request, one instant, one actor): the
 * canonical text of the last metadata seen, by its JSON.stringify text (the same text is the same JSON
 * value, whose canonical text is one), is made once for them all.
 */
let lastMetadataText = null;
let lastMetadataCanonical = null;
function canonicalMetadataOf(metadata, text) {
  if (text !== undefined && text === lastMetadataText) return lastMetadataCanonical;
  const canonical = sortedJson(metadata);
  if (text !== undefined) {
    lastMetadataText = text;
    lastMetadataCanonical = canonical;
  }
  return canonical;
}

/**
 * prepareChain for the events of one part of an append, whose first revision is `first` (null: not
 * known, `any`). When every event's hash is made and all are of one account: [account, the hashes
 * (32-character latin1 strings) end to end], one small message to the writer thread instead of an
 * array per event; otherwise one preparation (or null) per event. `metadataTexts`: the events'
 * metadata as JSON.stringify wrote them for the store (they spare serialising a repeated one again).
 */
export function preparePart(streamId, first, events, metadataTexts) {
  const each = events.map((e, i) => prepareChain(e.id, e.type, streamId, first === null ? null : first + i, e.data, e.metadata, metadataTexts?.[i]));
  if (first === null) return each;
  let account = null;
  let hashes = '';
  for (const p of each) {
    if (!p || p[2] === null || (account !== null && p[4] !== account)) return each;
    account = p[4];
    hashes += p[2];
  }
  return account === null ? each : [account, hashes];
}

/** The canonical JSON of a stored JSON text (a writer without a preparation). */
export function canonicalText(text) {
  return sortedJson(JSON.parse(text));
}

/** prev ‖ event_hash, written in place for each chain hash (hashing is synchronous: no one else sees it). */
const PAIR = Buffer.alloc(64);

/** chainHash on bytes: SHA-256 of the 64 bytes prev ‖ event_hash. */
export function chainHashBytes(prev, eventHashBytes) {
  PAIR.set(prev, 0);
  PAIR.set(eventHashBytes, 32);
  return hash('sha256', PAIR, 'buffer');
}

/** chainHashBytes with the event hash as the writers carry it: its 32 bytes as a latin1 string. */
export function chainHashLatin1(prev, eventHashLatin1) {
  PAIR.set(prev, 0);
  PAIR.write(eventHashLatin1, 32, 'latin1');
  return hash('sha256', PAIR, 'buffer');
}

/** SHA-256 (hex) over the 64 bytes prev ‖ event_hash (both hex-decoded). */
export function chainHash(prev, eventHashHex) {
  return createHash('sha256').update(Buffer.from(prev, 'hex')).update(Buffer.from(eventHashHex, 'hex')).digest('hex');
}
