import type Database from 'better-sqlite3';
import type { ChainPreparation } from './chain-core.mjs';

/** Types of sqlite-chain.mjs (the audit chain's `chain` table on the embedded event store). */
export const CHAIN_SCHEMA: string;
export interface ChainWrites {
  begin(): void;
  chain(id: string, streamId: string, revision: number, type: string, data: string, metadata: string, position: number, prepared?: ChainPreparation | null, preparedRevision?: number | null): void;
  mark(): number;
  rollbackTo(mark: number): void;
  commit(): void;
  abort(): void;
}
export function chainWrites(conn: Database.Database): ChainWrites;
export function chainBacklog(conn: Database.Database): number;
