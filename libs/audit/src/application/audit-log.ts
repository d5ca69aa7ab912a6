import { Inject, Injectable } from '@nestjs/common';
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { EventStore } from '#event-store/event-store.port.js';
import { CLOCK, type Clock } from '#shared/clock.js';
import { DomainError, invalidParam, notFound } from '#shared/errors.js';
import { eventIdFromUuid, uuidFromEventId } from '#shared/ids.js';
import { type SealedSecret, SecretSealer } from '#shared/sealing.js';
import { EVENT_STORE, READ_STORE } from '#platform/tokens.js';
import { StateCollections } from '#platform/state-collections.js';
import type { CollectionSpec, ReadStore } from '#read-store/read-store.port.js';
import type { AuditChain } from '../domain/audit-chain.port.js';
import type { ChainEntry } from '../domain/chain.js';
import { consistencyProof, inclusionProof, merkleRoot } from '../domain/merkle.js';
import { publicKeyId, rawPublicKey, SIGNATURE_ALGORITHM, type SignedHead, signHead } from '../domain/signed-head.js';
import { type KeySuccession, signSuccession } from '../domain/key-succession.js';

/**
 * Where the audit log keeps its state beside the events (read-store state collections: a rebuild
 * never drops them, a backup copies them): the signing key (its private half sealed under the
 * master key, libs/shared/src/sealing.ts) and every head it signed.
 */
export const AUDIT_COLLECTIONS: CollectionSpec[] = [
  { name: 'audit_keys', indexes: [] },
  { name: 'audit_heads', indexes: [{ fields: ['account', 'size'] }] },
];

/**
 * A signing key's document in `audit_keys`: the current key under id `signing` (its private half
 * sealed), each retired key under `retired:<key_id>` (its private half destroyed at the rotation:
 * `sealed_private_key` null, `valid_to` set). `succession`: the statement by which the previous key
 * named this one (null for an installation's first key).
 */
export interface AuditKeyDoc {
  id: string;
  key_id: string;
  algorithm: typeof SIGNATURE_ALGORITHM;
  public_key_pem: string;
  sealed_private_key: SealedSecret | null;
  created_at: string;
  /** From when it signs (absent on a first key made before rotation existed: its created_at). */
  valid_from?: string;
  valid_to?: string | null;
  succession?: KeySuccession | null;
}

export const CURRENT_KEY_ID = 'signing';
const retiredDocId = (keyId: string) => `retired:${keyId}`;

/** One published key, current or retired (`GET /v1/audit/public_key`'s `keys`). */
export interface AuditKeyObject {
  object: 'audit_key';
  key_id: string;
  algorithm: string;
  public_key_pem: string;
  public_key_raw: string;
  status: 'current' | 'retired';
  valid_from: string;
  /** null while current. */
  valid_to: string | null;
  /** Signed by the previous key: it names this one its successor (null for the first key). */
  succession: KeySuccession | null;
}

export type SignedHeadDoc = SignedHead & { id: string };

export interface PublicKeyObject {
  object: 'audit_public_key';
  key_id: string;
  algorithm: string;
  /** SPKI PEM. */
  public_key_pem: string;
  /** The raw 32-byte key, base64url (RFC 8037 `x`). */
  public_key_raw: string;
  /** Every key that signed or signs heads, the first first, each retired one's successor named by a statement it signed. */
  keys: AuditKeyObject[];
}

export interface AuditEntryObject {
  account: string;
  seq: number;
  event: string;
  position: string;
  event_hash: string;
  prev: string;
  chain_hash: string;
}

export const headObject = (h: SignedHead) => ({ object: 'audit_signed_head' as const, account: h.account, size: h.size, chain_hash: h.chain_hash, merkle_root: h.merkle_root, signed_at: h.signed_at, key_id: h.key_id, algorithm: SIGNATURE_ALGORITHM, signature: h.signature });
export const entryObject = (e: ChainEntry): AuditEntryObject => ({ account: e.account, seq: e.seq, event: eventIdFromUuid(e.event_id), position: e.position, event_hash: e.event_hash, prev: e.prev, chain_hash: e.chain_hash });

const PAGE = 1000;

/**
 * The audit log's service side (docs/audit.md): signs accounts' chain heads with the service's
 * Ed25519 key (made on first use, kept sealed), publishes the public key, and answers inclusion and
 * consistency proofs (RFC 6962) against the signed heads.
 */
@Injectable()
export class AuditLog {
  private key: { doc: AuditKeyDoc; privateKey: KeyObject; publicKey: KeyObject } | null = null;

  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly sealer: SecretSealer,
    collections: StateCollections,
  ) {
    collections.register(...AUDIT_COLLECTIONS);
  }

  private get chain(): AuditChain {
    if (!this.events.auditChain) throw new DomainError('audit_unavailable', `The ${this.events.kind} event store keeps no audit chain here (docs/audit.md)`, null, 501);
    return this.events.auditChain;
  }

  /** The current signing key, its private half opened with the master key; made and kept on first use. A rotation by another process is seen at the next call. */
  private async signingKey() {
    let doc = await this.reads.get<AuditKeyDoc>('audit_keys', CURRENT_KEY_ID);
    if (!doc) {
      const pair = generateKeyPairSync('ed25519');
      const now = this.clock.now().toISOString();
      const made = this.keyDoc(pair, now, null);
      // Two processes making the key at once: both go on with the one that was kept.
      await this.reads.swap('audit_keys', CURRENT_KEY_ID, null, { ...made });
      doc = (await this.reads.get<AuditKeyDoc>('audit_keys', CURRENT_KEY_ID)) ?? made;
    }
    if (this.key?.doc.key_id === doc.key_id) return this.key;
    this.key = { doc, privateKey: createPrivateKey(this.sealer.open(doc.sealed_private_key!)), publicKey: createPublicKey(doc.public_key_pem) };
    return this.key;
  }

  private keyDoc(pair: { publicKey: KeyObject; privateKey: KeyObject }, validFrom: string, succession: KeySuccession | null): AuditKeyDoc {
    return {
      id: CURRENT_KEY_ID,
      key_id: publicKeyId(pair.publicKey),
      algorithm: SIGNATURE_ALGORITHM,
      public_key_pem: pair.publicKey.export({ type: 'spki', format: 'pem' }) as string,
      sealed_private_key: this.sealer.seal(pair.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string),
      created_at: validFrom,
      valid_from: validFrom,
      valid_to: null,
      succession,
    };
  }

  /**
   * Replaces the signing key (docs/audit.md §3): a new Ed25519 key signs every head from now on; the
   * retiring key signs the statement that names its successor, then its private half is destroyed
   * (its public half stays published with the statement). Refused when another rotation won the race.
   */
  async rotateKey(): Promise<{ previous: AuditKeyObject; current: AuditKeyObject }> {
    const old = await this.signingKey();
    const now = this.clock.now().toISOString();
    const pair = generateKeyPairSync('ed25519');
    const succession = signSuccession({ previous_key_id: old.doc.key_id, key_id: publicKeyId(pair.publicKey), public_key_raw: rawPublicKey(pair.publicKey).toString('base64url'), valid_from: now }, old.privateKey);
    const next = this.keyDoc(pair, now, succession);
    const retired: AuditKeyDoc = { ...old.doc, id: retiredDocId(old.doc.key_id), sealed_private_key: null, valid_from: old.doc.valid_from ?? old.doc.created_at, valid_to: now, succession: old.doc.succession ?? null };
    // The retired key's public half first: it is published whatever happens next (kept as it is if a
    // rotation racing this one wrote it already).
    await this.reads.swap('audit_keys', retired.id, null, { ...retired });
    if (!(await this.reads.swap('audit_keys', CURRENT_KEY_ID, { key_id: old.doc.key_id }, { ...next }))) {
      throw new DomainError('audit_key_rotated', `The audit signing key ${old.doc.key_id} was rotated by another process meanwhile: nothing done`, null, 409);
    }
    // This rotation won: the old key's validity ends where its successor's begins.
    await this.reads.commit([{ collection: 'audit_keys', id: retired.id, doc: { ...retired } }]);
    this.key = { doc: next, privateKey: pair.privateKey, publicKey: pair.publicKey };
    return { previous: keyObject(retired), current: keyObject(next) };
  }

  /** Every key, current and retired, the first first. */
  async keys(): Promise<AuditKeyObject[]> {
    await this.signingKey();
    const docs = await this.reads.find<AuditKeyDoc>('audit_keys', { orderBy: { field: 'id', direction: 'asc' }, limit: 10_000 });
    return docs.map(keyObject).sort((a, b) => (a.status === b.status ? a.valid_from.localeCompare(b.valid_from) : a.status === 'retired' ? -1 : 1));
  }

  /** The succession statements, oldest first (what a holder of the first key needs to trust the current one). */
  async successions(): Promise<KeySuccession[]> {
    return (await this.keys()).flatMap((k) => (k.succession ? [k.succession] : []));
  }

  async publicKey(): Promise<PublicKeyObject> {
    const { doc, publicKey } = await this.signingKey();
    return { object: 'audit_public_key', key_id: doc.key_id, algorithm: doc.algorithm, public_key_pem: doc.public_key_pem, public_key_raw: rawPublicKey(publicKey).toString('base64url'), keys: await this.keys() };
  }

  /** The account's entries' event hashes (the Merkle leaves), the first `size` of them. */
  private async leaves(account: string, size: number): Promise<string[]> {
    const out: string[] = [];
    while (out.length < size) {
      const page = await this.chain.readChain(account, out.length, Math.min(PAGE, size - out.length));
      if (page.length === 0) break;
      out.push(...page.map((e) => e.event_hash));
    }
    return out;
  }

  /** Signs the account's chain as it stands now and keeps the signed head. */
  async sign(account: string): Promise<SignedHead> {
    const head = await this.chain.chainHead(account);
    const leaves = await this.leaves(account, head.size);
    let signed: SignedHead;
    // A rotation between loading the key and keeping the head: signed again with the new key (the same id, replaced).
    for (let attempt = 0; ; attempt++) {
      const { doc, privateKey } = await this.signingKey();
      signed = signHead({ account, size: leaves.length, chain_hash: head.chain_hash, merkle_root: merkleRoot(leaves), signed_at: this.clock.now().toISOString(), key_id: doc.key_id }, privateKey);
      await this.reads.commit([{ collection: 'audit_heads', id: `${account}:${signed.size}`, doc: { id: `${account}:${signed.size}`, ...signed } }]);
      if (attempt > 0 || (await this.reads.get<AuditKeyDoc>('audit_keys', CURRENT_KEY_ID))?.key_id === doc.key_id) return signed;
    }
  }

  /** The latest head signed for the account, or null. */
  async latest(account: string): Promise<SignedHead | null> {
    const [doc] = await this.reads.find<SignedHeadDoc>('audit_heads', { where: { account }, orderBy: { field: 'size', direction: 'desc' }, limit: 1 });
    return doc ? stripId(doc) : null;
  }

  /** A signed head of the account at exactly `size` entries, or null. */
  async signedAt(account: string, size: number): Promise<SignedHead | null> {
    const doc = await this.reads.get<SignedHeadDoc>('audit_heads', `${account}:${size}`);
    return doc ? stripId(doc) : null;
  }

  /** The latest signed head (signed now when `fresh`, or when none was signed yet). */
  async head(account: string, fresh = false): Promise<SignedHead> {
    if (!fresh) {
      const latest = await this.latest(account);
      if (latest) return latest;
    }
    return this.sign(account);
  }

  /** Signs every account whose chain moved since its latest signed head; returns how many it signed. */
  async signMoved(): Promise<number> {
    let n = 0;
    for (const account of await this.chain.chainAccounts()) {
      const [head, latest] = await Promise.all([this.chain.chainHead(account), this.latest(account)]);
      if (latest && latest.size >= head.size) continue;
      await this.sign(account);
      n += 1;
    }
    return n;
  }

  /** That an event (evt_…) of the account is in its log: its entry, leaf index and RFC 6962 audit path against the latest signed head. */
  async inclusion(account: string, eventId: string) {
    const uuid = uuidFromEventId(eventId);
    const entry = uuid ? await this.chain.chainEntry(uuid) : null;
    if (!entry || entry.account !== account) throw notFound('event', eventId, 'event');
    let head = await this.head(account);
    if (head.size <= entry.seq) head = await this.sign(account);
    const leaves = await this.leaves(account, head.size);
    return { object: 'audit_inclusion_proof' as const, entry: entryObject(entry), leaf_index: entry.seq, tree_size: head.size, audit_path: inclusionProof(leaves, entry.seq, head.size), signed_head: headObject(head) };
  }

  /** That the account's tree of `fromSize` entries is a prefix of its tree of `toSize` (default: the latest signed head's). */
  async consistency(account: string, fromSize: number, toSize?: number) {
    const head = await this.head(account);
    const to = toSize ?? head.size;
    const size = (await this.chain.chainHead(account)).size;
    if (!(Number.isInteger(fromSize) && fromSize >= 1 && fromSize <= to)) throw invalidParam('from_size', `from_size must be an integer from 1 to to_size (${to})`);
    if (!(Number.isInteger(to) && to <= size)) throw invalidParam('to_size', `to_size must be at most the log's size (${size})`);
    const leaves = await this.leaves(account, to);
    const signedTo = to === head.size ? head : await this.signedAt(account, to);
    const signedFrom = await this.signedAt(account, fromSize);
    return {
      object: 'audit_consistency_proof' as const,
      account,
      from_size: fromSize,
      to_size: to,
      from_root: merkleRoot(leaves.slice(0, fromSize)),
      to_root: merkleRoot(leaves),
      proof: consistencyProof(leaves, fromSize, to),
      signed_heads: [signedFrom, signedTo].filter((h): h is SignedHead => h !== null).map(headObject),
    };
  }
}

function keyObject(doc: AuditKeyDoc): AuditKeyObject {
  return {
    object: 'audit_key',
    key_id: doc.key_id,
    algorithm: doc.algorithm,
    public_key_pem: doc.public_key_pem,
    public_key_raw: rawPublicKey(createPublicKey(doc.public_key_pem)).toString('base64url'),
    status: doc.id === CURRENT_KEY_ID ? 'current' : 'retired',
    valid_from: doc.valid_from ?? doc.created_at,
    valid_to: doc.valid_to ?? null,
    succession: doc.succession ?? null,
  };
}

function stripId(doc: SignedHeadDoc): SignedHead {
  const { id: _id, ...head } = doc;
  return head;
}
