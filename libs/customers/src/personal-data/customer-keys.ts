import { randomBytes } from 'node:crypto';
import type { CollectionSpec, ReadStore } from '#read-store/read-store.port.js';
import { customerErased } from '../domain/customer.decider.js';
import { isSealedSecret, type SealedSecret, type SecretSealer } from '#shared/sealing.js';
import { DATA_KEY_BYTES } from './pii-cipher.js';

/**
 * The customers' data keys (docs/personal-data.md): one random 256-bit key per customer, made at its
 * first personal data, kept sealed under the master key (SecretSealer) in the `customer_keys` state
 * collection of the read store — both the event loop and the pipeline's thread (and every process of
 * a deployment) read it, and a rebuild never drops it (it is not a projection). Erasing a customer
 * replaces its document by a tombstone (`sealed: null`, `erased_at`): the key is gone for good.
 */
export const CUSTOMER_KEYS = 'customer_keys';
export const CUSTOMER_KEYS_SPEC: CollectionSpec = { name: CUSTOMER_KEYS, indexes: [] };

export interface CustomerKeyDoc {
  id: string;
  /** The data key (base64), sealed under the master key; null once erased. */
  sealed: SealedSecret | null;
  created_at: string;
  erased_at: string | null;
}

const ERASED = 'erased' as const;

export class CustomerKeyring {
  private sealer: SecretSealer | null = null;
  private readonly sealerWaiters: Array<(s: SecretSealer) => void> = [];
  /** Opened keys and known erasures, least recently used first (an erasure is final, so it stays known). */
  private readonly cache = new Map<string, Buffer | typeof ERASED>();
  private ensured: Promise<void> | null = null;
  /** Subjects seen not erased (and holding no key here): a read of their plaintext (older events) needs no lookup. */
  private readonly notErased = new Set<string>();

  constructor(
    private readonly reads: ReadStore,
    /** `waitForSealer: false`: a key asked for before `attach` is an error instead of a wait (the pipeline's thread, given its master key at start or never). */
    private readonly options: { capacity?: number; now?: () => Date; waitForSealer?: boolean } = {},
  ) {}

  /** The sealer (the master key) is known once the sealing module has started; keys wait for it. */
  attach(sealer: SecretSealer): this {
    this.sealer = sealer;
    for (const w of this.sealerWaiters.splice(0)) w(sealer);
    return this;
  }

  get attached(): boolean {
    return this.sealer !== null;
  }

  private sealerReady(): Promise<SecretSealer> {
    if (this.sealer) return Promise.resolve(this.sealer);
    if (this.options.waitForSealer === false) return Promise.reject(new Error('No master key was given to open the customers\' data keys with (docs/personal-data.md)'));
    return new Promise((resolve) => this.sealerWaiters.push(resolve));
  }

  private ensure(): Promise<void> {
    this.ensured ??= this.reads.ensureCollections([CUSTOMER_KEYS_SPEC]).catch((error: unknown) => {
      this.ensured = null;
      throw error;
    });
    return this.ensured;
  }

  private remember(customerId: string, value: Buffer | typeof ERASED): void {
    this.cache.delete(customerId);
    this.cache.set(customerId, value);
    const capacity = this.options.capacity ?? 10_000;
    while (this.cache.size > capacity) this.cache.delete(this.cache.keys().next().value as string);
  }

  private cached(customerId: string): Buffer | typeof ERASED | undefined {
    const hit = this.cache.get(customerId);
    if (hit !== undefined) this.remember(customerId, hit);
    return hit;
  }

  private async load(customerId: string): Promise<CustomerKeyDoc | null> {
    await this.ensure();
    return this.reads.get<CustomerKeyDoc>(CUSTOMER_KEYS, customerId);
  }

  private async open(doc: CustomerKeyDoc): Promise<Buffer | typeof ERASED> {
    if (doc.erased_at || !isSealedSecret(doc.sealed)) return ERASED;
    const sealer = await this.sealerReady();
    return Buffer.from(sealer.open(doc.sealed), 'base64');
  }

  /** The customer's key to encrypt with, made on first use; a `customer_erased` error once erased. */
  async keyForWrite(customerId: string): Promise<Buffer> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const hit = this.cached(customerId);
      if (hit === ERASED) throw customerErased(customerId);
      if (hit) return hit;
      const doc = await this.load(customerId);
      if (doc) {
        const key = await this.open(doc);
        this.remember(customerId, key);
        continue;
      }
      const sealer = await this.sealerReady();
      const key = randomBytes(DATA_KEY_BYTES);
      const made: CustomerKeyDoc = { id: customerId, sealed: sealer.seal(key.toString('base64')), created_at: this.now().toISOString(), erased_at: null };
      // Two writers racing for the first key agree on the one kept.
      if (await this.reads.swap(CUSTOMER_KEYS, customerId, null, { ...made })) {
        this.remember(customerId, key);
        return key;
      }
    }
    throw new Error(`The data key of customer ${customerId} could not be made`);
  }

  /** The customer's key to decrypt with; null once erased (or when none was ever kept). */
  async keyForRead(customerId: string): Promise<Buffer | null> {
    const hit = this.cached(customerId);
    if (hit !== undefined) return hit === ERASED ? null : hit;
    const doc = await this.load(customerId);
    // No document: never erased by us, but nothing to open with either (a lost read store): the placeholder, not cached.
    if (!doc) return null;
    const key = await this.open(doc);
    this.remember(customerId, key);
    return key === ERASED ? null : key;
  }

  /**
   * Whether a subject was erased, for reading events written in clear (before encryption existed):
   * their personal values then read as placeholders too. Answers from memory once known.
   */
  async erasedForRead(subject: string): Promise<boolean> {
    const hit = this.cached(subject);
    if (hit !== undefined) return hit === ERASED;
    if (this.notErased.has(subject)) return false;
    const doc = await this.load(subject);
    if (doc?.erased_at) {
      this.remember(subject, ERASED);
      return true;
    }
    if (this.notErased.size >= (this.options.capacity ?? 10_000)) this.notErased.clear();
    this.notErased.add(subject);
    return false;
  }

  async isErased(customerId: string): Promise<boolean> {
    const hit = this.cached(customerId);
    if (hit !== undefined) return hit === ERASED;
    const doc = await this.load(customerId);
    return !!doc?.erased_at;
  }

  /**
   * Destroys the customer's key (its document becomes a tombstone; a customer without a key gets one,
   * so nothing is made for it later). Returns false when it was erased before.
   */
  async erase(customerId: string): Promise<boolean> {
    for (let attempt = 0; attempt < 10; attempt++) {
      const doc = await this.load(customerId);
      if (doc?.erased_at) {
        this.remember(customerId, ERASED);
        return false;
      }
      const tombstone: CustomerKeyDoc = { id: customerId, sealed: null, created_at: doc?.created_at ?? this.now().toISOString(), erased_at: this.now().toISOString() };
      const expected = doc ? { id: doc.id, created_at: doc.created_at, erased_at: null } : null;
      if (await this.reads.swap(CUSTOMER_KEYS, customerId, expected, { ...tombstone })) {
        const old = this.cache.get(customerId);
        if (Buffer.isBuffer(old)) old.fill(0);
        this.remember(customerId, ERASED);
        this.notErased.delete(customerId);
        return true;
      }
    }
    throw new Error(`The data key of customer ${customerId} could not be destroyed`);
  }

  /** Another process erased the customer (its `customer.erased` was read): the key held in memory is dropped. */
  forgetErased(customerId: string): void {
    const old = this.cache.get(customerId);
    if (Buffer.isBuffer(old)) old.fill(0);
    this.remember(customerId, ERASED);
    this.notErased.delete(customerId);
  }

  private now(): Date {
    return this.options.now?.() ?? new Date();
  }
}
