import { Global, Inject, Injectable, Logger, Module } from '@nestjs/common';
import { retryWithBackoff } from './retry.js';
import { redactUrl } from './config.js';
import type { CollectionSpec, ReadStore, Scalar } from '#read-store/read-store.port.js';
import { isSealedSecret, loadMasterKey, type MasterKeySource, MissingMasterKeyError, type SealedSecret, SealingError, SecretSealer } from '#shared/sealing.js';
import type { Config } from './config.js';
import { StateCollections } from './state-collections.js';
import { CONFIG, READ_STORE } from './tokens.js';

/** Where the master key came from (`created`, `path`: null for MASTER_KEY); the first start says so. */
export const MASTER_KEY_SOURCE = Symbol('MASTER_KEY_SOURCE');

/** The secrets kept sealed by id (webhook signing secrets, the pages' and checkout's signing keys). */
export const SEALED_SECRETS = 'sealed_secrets';

/**
 * Every place a sealed secret is stored: read-store state collections (never projections, never
 * events, so a re-wrap can rewrite them) and the field of each document that holds it. The start-up
 * check and `secrets rewrap` walk exactly these; a context that seals another secret adds its place here.
 */
export const SEALED_LOCATIONS: ReadonlyArray<{ collection: string; field: string }> = [
  { collection: SEALED_SECRETS, field: 'sealed' },
  { collection: 'member_credentials', field: 'sealed' },
  { collection: 'audit_keys', field: 'sealed_private_key' },
  // The customers' data keys (libs/customers/src/personal-data/customer-keys.ts; an erased one holds null).
  { collection: 'customer_keys', field: 'sealed' },
  // The buyer identification of an erased customer's issued invoices (libs/customers/src/personal-data/fiscal-retention.ts).
  { collection: 'fiscal_buyers', field: 'sealed' },
];

const LOCATION_SPECS: CollectionSpec[] = SEALED_LOCATIONS.map((l) => ({ name: l.collection, indexes: [] }));
const PAGE = 500;

/** A `sealed_secrets` document: the sealed value and, beside it, the id of the master key that wraps its data key. */
export interface SealedSecretDoc {
  id: string;
  purpose: string;
  kid: string;
  sealed: SealedSecret;
  created_at: string;
}

async function* sealedDocs(reads: ReadStore): AsyncGenerator<{ collection: string; field: string; doc: Record<string, unknown> & { id: string } }> {
  for (const { collection, field } of SEALED_LOCATIONS) {
    let after: { value: Scalar; id: string } | undefined;
    for (;;) {
      const page = await reads.find<Record<string, unknown> & { id: string }>(collection, { orderBy: { field: 'id', direction: 'asc' }, after, limit: PAGE });
      for (const doc of page) if (isSealedSecret(doc[field])) yield { collection, field, doc };
      if (page.length < PAGE) break;
      const last = page[page.length - 1];
      after = { value: last.id, id: last.id };
    }
  }
}

/** The ids of the master keys the stored sealed secrets are wrapped under, with how many each. */
export async function storedMasterKeyIds(reads: ReadStore): Promise<Map<string, number>> {
  await reads.ensureCollections(LOCATION_SPECS);
  const kids = new Map<string, number>();
  for await (const { field, doc } of sealedDocs(reads)) {
    const kid = (doc[field] as SealedSecret).kid;
    kids.set(kid, (kids.get(kid) ?? 0) + 1);
  }
  return kids;
}

/**
 * Re-wraps every stored sealed secret's data key under the sealer's current master key (the
 * ciphertexts stay as they are), each document by a compare-and-set on its top-level fields, so a
 * write racing with it (a sign-in's last step) wins and the document is read and re-wrapped again.
 * Safe to run while the service runs, and to run again (what is already under the key is skipped).
 */
export async function rewrapSealedSecrets(reads: ReadStore, sealer: SecretSealer): Promise<{ rewrapped: number; already: number }> {
  await reads.ensureCollections(LOCATION_SPECS);
  let rewrapped = 0;
  let already = 0;
  for await (const { collection, field, doc: first } of sealedDocs(reads)) {
    let doc: (Record<string, unknown> & { id: string }) | null = first;
    for (let attempt = 0; doc && attempt < 10; attempt++) {
      const sealed = doc[field] as SealedSecret;
      const next = sealer.rewrap(sealed);
      if (!next) {
        already++;
        break;
      }
      const expected: Record<string, Scalar> = {};
      for (const [k, v] of Object.entries(doc)) if (v === null || ['string', 'number', 'boolean'].includes(typeof v)) expected[k] = v as Scalar;
      const replaced: Record<string, unknown> = { ...doc, [field]: next };
      if (collection === SEALED_SECRETS) replaced.kid = next.kid;
      if (await reads.swap(collection, doc.id, expected, replaced)) {
        rewrapped++;
        break;
      }
      doc = await reads.get<Record<string, unknown> & { id: string }>(collection, doc.id);
      if (doc && !isSealedSecret(doc[field])) doc = null;
    }
  }
  return { rewrapped, already };
}

/**
 * The master key for this start: MASTER_KEY (+ MASTER_KEY_PREVIOUS), else the key file in KEYS_DIR
 * (`<DATA_DIR>.keys/master.key`), made on the first start only when the stores hold no sealed
 * secret. Refuses to start when the stores hold secrets sealed under a master key it was not given.
 */
export async function masterKeyForStart(config: Config, reads: ReadStore): Promise<MasterKeySource> {
  const where = { env: config.masterKey ?? undefined, previousEnv: config.masterKeyPrevious ?? undefined, dataDir: config.dataDir, keysDir: config.keysDir ?? null };
  // A read store briefly unreachable at start (a container still starting) is retried as the platform's start-up step is.
  const kids = await retryWithBackoff(() => storedMasterKeyIds(reads), {
    maxMs: config.startupRetryMs,
    onRetry: (error, attempt, delay) => new Logger('Sealing').warn(`a store is not answering yet (attempt ${attempt}: ${redactUrl(String((error as Error)?.message ?? error))}); retrying in ${delay} ms`),
  });
  const held = () => [...kids.entries()].map(([kid, n]) => `${kid} (${n})`).join(', ');
  let source: MasterKeySource;
  try {
    source = loadMasterKey({ ...where, create: kids.size === 0 });
  } catch (error) {
    if (error instanceof MissingMasterKeyError) {
      throw new MissingMasterKeyError(`${error.message}, yet the stores hold secrets sealed under master key ${held()}. Give this process that master key (MASTER_KEY=<base64>, or put its key file back); a new key would open none of them, so the service does not start.`);
    }
    throw error;
  }
  const ring = new Set([source.kid, ...source.previous.map((p) => p.kid)]);
  const unknown = [...kids.keys()].filter((k) => !ring.has(k));
  if (unknown.length > 0) {
    const from = source.path ? `the key file ${source.path}` : 'MASTER_KEY';
    throw new SealingError(`The stores hold secrets sealed under master key ${unknown.join(', ')}, which this process was not given (it has ${[...ring].join(', ')}, from ${from}${source.previous.length ? ' and MASTER_KEY_PREVIOUS' : ''}). Set MASTER_KEY to the key they were sealed with (or add it to MASTER_KEY_PREVIOUS while a re-wrap runs); the service does not start.`);
  }
  return source;
}

/**
 * Secrets sealed and kept by id in the `sealed_secrets` state collection: the plaintext never reaches
 * an event, a read model or a log. Opened values are kept in memory (a secret's plaintext never
 * changes under its id; a re-wrap only changes how its data key is wrapped).
 */
@Injectable()
export class SecretVault {
  private readonly opened = new Map<string, string>();
  private readonly logger = new Logger('sealing');

  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    readonly sealer: SecretSealer,
    collections: StateCollections,
  ) {
    collections.register({ name: SEALED_SECRETS, indexes: [] });
  }

  private docOf(id: string, purpose: string, plaintext: string): SealedSecretDoc {
    const sealed = this.sealer.seal(plaintext);
    return { id, purpose, kid: sealed.kid, sealed, created_at: new Date().toISOString() };
  }

  /** Seals and keeps a new secret under a new id (a second put under the same id is refused). */
  async put(id: string, purpose: string, plaintext: string): Promise<void> {
    if (!(await this.reads.swap(SEALED_SECRETS, id, null, { ...this.docOf(id, purpose, plaintext) }))) throw new SealingError(`A sealed secret ${id} already exists`);
    this.opened.set(id, plaintext);
  }

  /** The secret kept under `id`, opened; null when there is none. */
  async open(id: string): Promise<string | null> {
    const known = this.opened.get(id);
    if (known !== undefined) return known;
    const doc = await this.reads.get<SealedSecretDoc>(SEALED_SECRETS, id);
    if (!doc) return null;
    let plaintext: string;
    try {
      plaintext = this.sealer.open(doc.sealed);
    } catch (error) {
      if (error instanceof SealingError) this.logger.error({ msg: 'a sealed secret does not open with this process\'s master keys: check MASTER_KEY / MASTER_KEY_PREVIOUS (or KEYS_DIR/master.key)', id, purpose: doc.purpose, kid: doc.sealed?.kid });
      throw error;
    }
    this.opened.set(id, plaintext);
    return plaintext;
  }

  /** Forgets a secret kept by `put` that nothing names (the write that was to name it was refused). */
  async discard(id: string): Promise<void> {
    this.opened.delete(id);
    await this.reads.commit([{ collection: SEALED_SECRETS, id, doc: null }]);
  }

  /** The secret under `id`, made by `make` and kept on first use (processes racing agree on the first kept). */
  async openOrCreate(id: string, purpose: string, make: () => string): Promise<string> {
    const existing = await this.open(id);
    if (existing !== null) return existing;
    await this.reads.swap(SEALED_SECRETS, id, null, { ...this.docOf(id, purpose, make()) });
    const kept = await this.open(id);
    if (kept === null) throw new SealingError(`The sealed secret ${id} could not be kept`);
    return kept;
  }
}

/**
 * The master key, the sealer and the vault, for every context (global). The start stops here, with
 * the reason, when the master key is missing or another one than the stored secrets were sealed with.
 */
@Global()
@Module({
  providers: [
    { provide: MASTER_KEY_SOURCE, inject: [CONFIG, READ_STORE], useFactory: (config: Config, reads: ReadStore) => masterKeyForStart(config, reads) },
    { provide: SecretSealer, inject: [MASTER_KEY_SOURCE], useFactory: (source: MasterKeySource) => SecretSealer.fromMasterKey(source) },
    SecretVault,
  ],
  exports: [MASTER_KEY_SOURCE, SecretSealer, SecretVault],
})
export class SealingModule {}
