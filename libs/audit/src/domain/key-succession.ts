/**
 * Rotation of the audit signing key (docs/audit.md §3): the retiring key signs a succession statement
 * naming its successor, so whoever trusts the old key can trust the new one without asking the
 * operator. The statement is { type: "audit_key_succession", previous_key_id, key_id, public_key_raw,
 * valid_from } — its RFC 8785 canonical JSON, as UTF-8 bytes — signed with Ed25519 by the previous key.
 * A verifier starts from a key it trusts (kept out of the operator's reach) and follows statements
 * forward; a head signed by a key no statement reaches is refused.
 */
import { createPublicKey, type KeyObject, sign, verify } from 'node:crypto';
import { canonicalJson } from '../chain-core.mjs';
import { publicKeyId, type SignedHead, verifySignedHead } from './signed-head.js';

export const SUCCESSION_TYPE = 'audit_key_succession';

export interface KeySuccessionBody {
  /** The key that signs the statement (retired by it). */
  previous_key_id: string;
  /** The successor's id and raw 32-byte public key (base64url, RFC 8037 `x`). */
  key_id: string;
  public_key_raw: string;
  /** From when the successor signs the heads (the rotation's time). */
  valid_from: string;
}

export interface KeySuccession extends KeySuccessionBody {
  /** base64 of the previous key's Ed25519 signature over successionBytes(body). */
  signature: string;
}

/** The bytes signed: the canonical JSON of the body's four fields and `type` (so a statement is never read as a head). */
export function successionBytes(body: KeySuccessionBody): Buffer {
  const { previous_key_id, key_id, public_key_raw, valid_from } = body;
  return Buffer.from(canonicalJson({ type: SUCCESSION_TYPE, previous_key_id, key_id, public_key_raw, valid_from }) as string, 'utf8');
}

export function signSuccession(body: KeySuccessionBody, previousPrivateKey: KeyObject): KeySuccession {
  const { previous_key_id, key_id, public_key_raw, valid_from } = body;
  return { previous_key_id, key_id, public_key_raw, valid_from, signature: sign(null, successionBytes(body), previousPrivateKey).toString('base64') };
}

/** The public key a raw 32-byte Ed25519 key (base64url) is. */
export function publicKeyFromRaw(raw: string): KeyObject {
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw }, format: 'jwk' });
}

/**
 * The keys reachable from `trusted` through the statements (in any order): each statement signed by
 * an already trusted key, whose successor's raw key hashes to its key_id, adds the successor.
 */
export function trustedKeyring(trusted: KeyObject | string, successions: readonly KeySuccession[]): Map<string, KeyObject> {
  const root = typeof trusted === 'string' ? createPublicKey(trusted) : trusted;
  const ring = new Map<string, KeyObject>([[publicKeyId(root), root]]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const s of successions) {
      if (ring.has(s.key_id)) continue;
      const signer = ring.get(s.previous_key_id);
      if (!signer) continue;
      let next: KeyObject;
      try {
        next = publicKeyFromRaw(s.public_key_raw);
        if (publicKeyId(next) !== s.key_id) continue;
        if (!verify(null, successionBytes(s), signer, Buffer.from(String(s.signature), 'base64'))) continue;
      } catch {
        continue;
      }
      ring.set(s.key_id, next);
      grew = true;
    }
  }
  return ring;
}

/** Why `head` is not trusted under `ring` (null: it is): its key unknown to the ring, or the signature bad. */
export function headUntrusted(head: SignedHead, ring: ReadonlyMap<string, KeyObject>): string | null {
  const key = ring.get(head.key_id);
  if (!key) return `the head is signed by key ${head.key_id}, which no succession statement reaches from the trusted key${ring.size > 1 ? 's' : ''} (${[...ring.keys()].join(', ')})`;
  if (!verifySignedHead(head, key)) return `the head's signature does not verify with key ${head.key_id}`;
  return null;
}
