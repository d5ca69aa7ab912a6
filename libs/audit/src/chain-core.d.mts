/** Types of chain-core.mjs (the audit chain's hashing, shared with the SQLite writer thread). */
export interface HashableEvent {
  /** The stored UUID or the public `evt_` id (hashed as the `evt_` id). */
  id: string;
  type: string;
  streamId: string;
  revision: number;
  data: unknown;
  metadata: { occurred_at?: string; account_id?: string; [key: string]: unknown };
}
export const GENESIS: string;
export const PLATFORM_ACCOUNT: string;
export const UNCHAINED_STREAM_PREFIXES: readonly string[];
export const CHAIN_STREAM_PREFIX: string;
export function isChained(streamId: string): boolean;
export function chainAccount(metadata: { account_id?: unknown } | null | undefined): string;
export function canonicalJson(value: unknown): string | undefined;
export function canonicalEventOf(id: string, type: string, streamId: string, revision: number, time: string | undefined, canonicalData: string, canonicalMetadata: string): string;
export function eventHashOf(id: string, type: string, streamId: string, revision: number, time: string | undefined, canonicalData: string, canonicalMetadata: string): string;
export function canonicalEvent(event: HashableEvent): string;
export function eventHash(event: HashableEvent): string;
export function chainHash(prev: string, eventHashHex: string): string;
export function eventHashBytesOf(id: string, type: string, streamId: string, revision: number, time: string | undefined, canonicalData: string, canonicalMetadata: string): Buffer;
export function chainHashBytes(prev: Buffer, eventHashBytes: Buffer): Buffer;
export function chainHashLatin1(prev: Buffer, eventHashLatin1: string): Buffer;
/**
 * [canonical data, canonical metadata, null, metadata.occurred_at or null, the chain's account] when the
 * revision is not known; [null, null, event hash (its 32 bytes as a latin1 string), null, the chain's account] when it is.
 */
export type ChainPreparation = [string, string, null, string | null, string] | [null, null, string, null, string];
/** A part's preparations: [account, hashes end to end] or one per event (prepareChain). */
export type PartPreparation = [string, string] | (ChainPreparation | null)[];
export function preparePart(streamId: string, first: number | null, events: readonly { id: string; type: string; data: unknown; metadata: unknown }[], metadataTexts?: readonly string[]): PartPreparation;
export function prepareChain(id: string, type: string, streamId: string, revision: number | null, data: unknown, metadata: unknown, metadataText?: string): ChainPreparation | null;
export function canonicalText(text: string): string;
