import type Database from 'better-sqlite3';
import type { ChainPreparation } from './chain-core.mjs';

/** Types of sqlite-chain.mjs (the audit chain's `chain_blocks` table on the embedded event store). */
export const CHAIN_SCHEMA: string;
export const BLOCK_COLUMNS: string;
/** The chain hash before an account's first entry (32 zero bytes). */
export const GENESIS_BYTES: Buffer;
/** An account's last block (first_seq, count, chain_hash), by account. */
export const LAST_BLOCK_SQL: string;
/** A stored block's row (BLOCK_COLUMNS). */
export interface BlockRow {
  account: string;
  first_seq: number;
  count: number;
  commit_first: number;
  last_position: number;
  positions: Buffer;
  event_ids: string;
  event_hashes: Buffer;
  chain_hash: Buffer;
}
export interface ChainBlock {
  account: string;
  firstSeq: number;
  count: number;
  positions: number[];
  eventIds: string[];
  eventHashes: Buffer[];
  chainHash: Buffer;
}
export function decodeBlock(row: BlockRow): ChainBlock;
export function blockChainHashes(block: ChainBlock, prev: Buffer): Buffer[];
export interface ChainWrites {
  begin(): void;
  chain(id: string, streamId: string, revision: number, type: string, data: string, metadata: string, position: number, prepared?: ChainPreparation | null, preparedRevision?: number | null): void;
  link(id: string, account: string, position: number, hashLatin1: string): void;
  mark(): number;
  rollbackTo(mark: number): void;
  seal(): void;
  commit(): void;
  abort(): void;
}
export function chainWrites(conn: Database.Database): ChainWrites;
export function chainEnd(conn: Database.Database): number;
export function chainBacklog(conn: Database.Database): number;
export function migrateRowChain(conn: Database.Database): number;
