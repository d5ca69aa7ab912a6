import { Inject, Injectable, type OnModuleDestroy, Optional } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import type { EventBrief } from '#event-store/event-store.port.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { READ_STORE } from '#platform/tokens.js';
import { StateCollections } from '#platform/state-collections.js';
import { type Clock, CLOCK } from '#shared/clock.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import { type ApiKeyKind, type ApiKeyPermissions, type Mode, parseApiKey, secretMatches } from '../domain/api-key.js';
import { API_KEY_USAGE, type ApiKeyDoc, type ApiKeyUsageDoc, keyIsUsable } from '../read-models/api-key.read-model.js';

export interface Principal {
  accountId: string;
  mode: Mode;
  /** The key the request came with (its id, never its secret). */
  keyId: string;
  kind: ApiKeyKind;
  /** Restricted keys only: what the key may do (libs/http/src/api-resource.ts enforces it). */
  permissions?: ApiKeyPermissions;
}

/** A key's last use is written at most this often (per key and process). */
export const USAGE_WRITE_INTERVAL_MS = 60_000;

/**
 * What tells this process that a key's document may change: the projection pipeline when it runs
 * here (every batch is shown before it is applied; `checkpoints` says what is committed).
 */
export interface KeyChangeSource {
  onBatch(listener: (events: EventBrief[]) => void): () => void;
  watching(): boolean;
  checkpoints(): Map<string, string | null>;
}

/** The read model authentication looks keys up in (and the projection that writes it). */
const API_KEYS = 'api_keys';
/** Key documents remembered at most (each a few hundred bytes). */
const REMEMBERED_KEYS = 10_000;

/**
 * Turns a secret key into the account and mode it stands for, or null.
 *
 * The key's document (account, mode, hash of the secret) is remembered by key id, so an
 * authenticated request does not read the read store each time; the secret is still hashed and
 * compared with the document's hash on every request, and an unknown key id is never remembered (a
 * key created a moment later works at once). The memory is trusted only while the projection
 * pipeline runs in this process (ROLE all/worker; with ROLE=api every request reads the store): an
 * account event in a batch it reads — the only events that write `api_keys` — empties the memory, and
 * nothing is remembered again until the `api_keys` projection has committed past that event, so a
 * key whose document changes (or goes) is judged on the new document from the next request on.
 *
 * A rolled key's expiry and a revocation are in the document, and are judged on every request against
 * the clock port's now (a remembered document still expires). A key's last use is written to
 * `api_key_usage` (not a projection: no position, kept by a rebuild) at most once a minute per key,
 * without the request waiting for it.
 */
@Injectable()
export class AuthenticateApiKey implements OnModuleDestroy {
  private readonly known = new LRUCache<string, ApiKeyDoc>({ max: REMEMBERED_KEYS });
  /** Key id → when this process last wrote its use (ms). */
  private readonly usageWritten = new LRUCache<string, number>({ max: REMEMBERED_KEYS });
  private readonly usageWrites = new Set<Promise<void>>();
  private usageReady: Promise<void> | null = null;
  private source: KeyChangeSource | null = null;
  /** The last account event seen in a batch that the api_keys projection may not have committed yet. */
  private settling: string | null = null;
  /** Account events seen so far: a document read while one arrived is not remembered. */
  private generation = 0;
  /** Store reads made (tests). */
  reads = 0;

  constructor(
    @Inject(READ_STORE) private readonly store: ReadStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Optional() engine?: ProjectionEngine,
    @Optional() collections?: StateCollections,
  ) {
    if (engine) this.watchKeyChanges(engine.pipeline);
    // Created at start by the platform (retried while the read store starts); made on first use otherwise.
    collections?.register({ name: API_KEY_USAGE, indexes: [] });
  }

  /** Lets the last-use writes still under way land before the stores close. */
  async onModuleDestroy(): Promise<void> {
    await Promise.all([...this.usageWrites]);
  }

  private ensureUsageCollection(): Promise<void> {
    this.usageReady ??= this.store.ensureCollections([{ name: API_KEY_USAGE, indexes: [] }]).catch((error) => {
      this.usageReady = null;
      throw error;
    });
    return this.usageReady;
  }

  /** Lets the memory be trusted while `source` watches the log (see the class comment). */
  watchKeyChanges(source: KeyChangeSource): () => void {
    const off = source.onBatch((events) => {
      for (const e of events) {
        if (!e.streamId.startsWith('account-')) continue;
        this.known.clear();
        this.generation++;
        if (this.settling === null || e.position > this.settling) this.settling = e.position;
      }
    });
    this.source = source;
    return () => {
      off();
      if (this.source === source) this.source = null;
      this.known.clear();
    };
  }

  async authenticate(rawKey: string): Promise<Principal | null> {
    const parsed = parseApiKey(rawKey);
    if (!parsed) return null;
    const trusted = this.trusted();
    let doc = trusted ? this.known.get(parsed.keyId) : undefined;
    if (!doc) {
      this.reads++;
      const generation = this.generation;
      doc = (await this.store.get<ApiKeyDoc>(API_KEYS, parsed.keyId)) ?? undefined;
      // Remembered only if no account event was shown while it was read (it may be older than that event).
      if (doc && trusted && generation === this.generation && this.trusted()) this.known.set(parsed.keyId, doc);
    }
    if (!doc || doc.mode !== parsed.mode || (doc.kind ?? 'secret') !== parsed.kind || !secretMatches(parsed.secret, doc.secret_hash)) return null;
    const now = this.clock.now();
    if (!keyIsUsable(doc, now)) return null;
    this.recordUse(doc.id, now);
    return parsed.kind === 'restricted'
      ? { accountId: doc.account_id, mode: doc.mode, keyId: doc.id, kind: 'restricted', permissions: doc.permissions ?? {} }
      : { accountId: doc.account_id, mode: doc.mode, keyId: doc.id, kind: 'secret' };
  }

  /** Writes the key's last use when this process has not for a minute; never delays nor fails the request. */
  private recordUse(keyId: string, now: Date): void {
    const ms = now.getTime();
    const last = this.usageWritten.get(keyId);
    if (last !== undefined && ms - last < USAGE_WRITE_INTERVAL_MS && ms >= last) return;
    this.usageWritten.set(keyId, ms);
    const doc: ApiKeyUsageDoc = { id: keyId, last_used_at: now.toISOString() };
    const write: Promise<void> = this.ensureUsageCollection()
      .then(() => this.store.commit([{ collection: API_KEY_USAGE, id: keyId, doc: { ...doc } }]))
      .catch(() => {
        // Only a hint for the key list: the next use a minute later tries again.
        this.usageWritten.delete(keyId);
      })
      .finally(() => this.usageWrites.delete(write));
    this.usageWrites.add(write);
  }

  /** Waits for the last-use writes under way (tests). */
  async usageSettled(): Promise<void> {
    await Promise.all([...this.usageWrites]);
  }

  /** Whether the memory may answer: the pipeline watches, and has committed every account event it showed. */
  private trusted(): boolean {
    if (!this.source?.watching()) return false;
    if (this.settling === null) return true;
    const committed = this.source.checkpoints().get(API_KEYS) ?? null;
    if (committed === null || committed < this.settling) return false;
    this.settling = null;
    this.known.clear();
    return true;
  }
}
