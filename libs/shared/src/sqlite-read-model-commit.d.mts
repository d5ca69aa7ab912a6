import type Database from 'better-sqlite3';

/** A compare-and-set: the SQL that reads a document's JSON by id and the upsert of `row`; `expected` fields (null: only if absent). */
export interface SwapRequest {
  readSql: string;
  upsertSql: string;
  id: string;
  expected: Record<string, string | number | boolean | null> | null;
  row: ReadModelRow;
}

/** A fenced commit's lease: [unit, holder, epoch]. */
export type FenceToken = [unit: string, holder: string, epoch: number];

/** A document write: [id, doc JSON | null, ...one value per column]. */
export type ReadModelRow = Array<string | number | null>;
/** Per collection: [collection, index of the `_position` column (-1: none), column count, flat rows, statements' SQL]. */
export type ReadModelRows = Array<[collection: string, positionAt: number, columns: number, flat: ReadModelRow, sql: string[]]>;

/** The writes of a read-model commit on `conn`: see sqlite-read-model-commit.mjs. */
export function readModelWrites(conn: Database.Database): {
  write(collection: string, positionAt: number, sql: string[], row: ReadModelRow, tombstoned: Map<string, boolean>): void;
  checkpoint(name: string, position: string): void;
  /** Throws (an error with `fenced`) unless the lease [unit, holder, epoch] is still held: run inside the commit's transaction. */
  fence(token: FenceToken | null | undefined): void;
  /** A compare-and-set of one document in its own IMMEDIATE transaction (ReadStore.swap): true when it replaced it. */
  swap(request: SwapRequest): boolean;
  commit: Database.Transaction<(rows: ReadModelRows, checkpoints: Array<[string, string]>, fence?: FenceToken | null) => void>;
};
