/**
 * The read-model store port: JSON documents in named collections, served to every GET.
 * Two adapters (embedded SQLite, MongoDB) pass one contract suite (test/contract/read-store.contract.ts).
 *
 * Documents are plain JSON objects with a string `id`. Fields whose name starts with `_`
 * are internal (tenant, sort keys, last applied position) and are stripped before a document
 * leaves the service.
 */

export type Scalar = string | number | boolean | null;

export interface IndexSpec {
  /** Field paths (top-level names) in index order. */
  fields: string[];
  unique?: boolean;
}

export interface CollectionSpec {
  name: string;
  indexes: IndexSpec[];
}

export interface FindQuery {
  /** Equality on top-level fields; an array value means "any of". */
  where?: Record<string, Scalar | Scalar[]>;
  /** Sort field (top-level, string or number) with `id` as tie-breaker in the same direction. */
  orderBy: { field: string; direction: 'asc' | 'desc' };
  /** Keyset cursor: only documents strictly after this (value, id) pair in the sort order. */
  after?: { value: Scalar; id: string };
  limit: number;
}

export interface DocumentWrite {
  collection: string;
  id: string;
  /** The whole new document, or null to delete it. */
  doc: Record<string, unknown> | null;
  /**
   * The position of the event this write reflects (a projected document's `_position`). Absent for
   * derived entries, which are the same whenever they are written. Where several workers may write
   * at once (MongoDB) a write with a position only lands over an older document, and a delete
   * leaves a tombstone at its position, so a slower worker never brings back an older version.
   */
  position?: string;
}

export interface Checkpoint {
  name: string;
  position: string;
}

export interface ReadStore {
  readonly kind: string;
  /** Creates the collection and its indexes if missing. */
  ensureCollections(specs: CollectionSpec[]): Promise<void>;
  get<T = Record<string, unknown>>(collection: string, id: string): Promise<T | null>;
  getMany<T = Record<string, unknown>>(collection: string, ids: string[]): Promise<Map<string, T>>;
  find<T = Record<string, unknown>>(collection: string, query: FindQuery): Promise<T[]>;
  /**
   * Writes documents and moves checkpoints forward, atomically where the engine allows (on a store
   * without transactions: derived entries first, then positioned documents, then checkpoints, so a
   * crash in between is repaired by redelivery). A checkpoint never moves backwards.
   */
  commit(writes: DocumentWrite[], checkpoint?: Checkpoint | Checkpoint[]): Promise<void>;
  getCheckpoint(name: string): Promise<string | null>;
  /** Drops the collections' documents and the checkpoint (projection rebuild). */
  reset(collections: string[], checkpointName: string): Promise<void>;
  close(): Promise<void>;
}
