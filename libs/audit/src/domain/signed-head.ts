/**
 * Signed heads (checkpoints) of an account's chain (docs/audit.md): the service signs
 * { account, size, chain_hash, merkle_root, signed_at, key_id } — its RFC 8785 canonical JSON, as
 * UTF-8 bytes — with Ed25519 (node:crypto). Whoever keeps a signed head can later check, with the
 * published public key, that the chain still passes through it (the verifier) and that the newer
 * tree extends it (an RFC 6962 consistency proof between the two merkle_roots).
 */
import { createHash, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';
import { canonicalJson } from '../chain-core.mjs';

export interface SignedHeadBody {
  account: string;
  /** Entries in the account's chain at signing. */
  size: number;
  /** chain_hash of the last entry (64 zeros for an empty chain). */
  chain_hash: string;
  /** RFC 6962 Merkle tree hash over the entries' event_hash, in seq order. */
  merkle_root: string;
  signed_at: string;
  key_id: string;
}

export interface SignedHead extends SignedHeadBody {
  /** base64 of the Ed25519 signature over signedBytes(body). */
  signature: string;
}

export const SIGNATURE_ALGORITHM = 'Ed25519';

/** The bytes signed: the RFC 8785 canonical JSON of the body's six fields. */
export function signedBytes(body: SignedHeadBody): Buffer {
  const { account, size, chain_hash, merkle_root, signed_at, key_id } = body;
  return Buffer.from(canonicalJson({ account, size, chain_hash, merkle_root, signed_at, key_id }) as string, 'utf8');
}

/** The key's raw 32 bytes (the JWK's `x`). */
export function rawPublicKey(publicKey: KeyObject): Buffer {
  return Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url');
}

/** A public key's id: the first 16 hex digits of the SHA-256 of its raw 32 bytes. */
export function publicKeyId(publicKey: KeyObject): string {
  return createHash('sha256').update(rawPublicKey(publicKey)).digest('hex').slice(0, 16);
}

export function signHead(body: SignedHeadBody, privateKey: KeyObject): SignedHead {
  return { ...body, signature: sign(null, signedBytes(body), privateKey).toString('base64') };
}

/** Whether `head` carries a valid signature by `publicKey` (a KeyObject or its SPKI PEM). */
export function verifySignedHead(head: SignedHead, publicKey: KeyObject | string): boolean {
  const key = typeof publicKey === 'string' ? createPublicKey(publicKey) : publicKey;
  try {
    return verify(null, signedBytes(head), key, Buffer.from(head.signature, 'base64'));
  } catch {
    return false;
  }
}
