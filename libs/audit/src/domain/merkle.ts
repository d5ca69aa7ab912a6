/**
 * RFC 6962 (Certificate Transparency) Merkle tree hash over an account's chain: the leaves are the
 * entries' event_hash (32 bytes each) in seq order. MTH({}) = SHA-256(), a leaf is
 * SHA-256(0x00 ‖ d), an inner node SHA-256(0x01 ‖ left ‖ right), split at the largest power of two
 * smaller than n. Inclusion (audit) paths and consistency proofs follow RFC 6962 §2.1.1/§2.1.2; their
 * verification the algorithms of RFC 9162 §2.1.3.2 and §2.1.4.2. Pure; hex strings in and out.
 */
import { createHash } from 'node:crypto';

const sha256 = (...parts: Buffer[]): Buffer => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};
const LEAF = Buffer.from([0]);
const NODE = Buffer.from([1]);

export const leafHash = (leafHex: string): string => sha256(LEAF, Buffer.from(leafHex, 'hex')).toString('hex');
export const nodeHash = (leftHex: string, rightHex: string): string => sha256(NODE, Buffer.from(leftHex, 'hex'), Buffer.from(rightHex, 'hex')).toString('hex');

/** The largest power of two smaller than n (n > 1). */
function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** MTH(D[n]) over the leaves' data (hex). */
export function merkleRoot(leaves: readonly string[]): string {
  if (leaves.length === 0) return sha256().toString('hex');
  return subtree(leaves.map(leafHash), 0, leaves.length);
}

/** The root of leaf hashes [from, to). */
function subtree(hashes: readonly string[], from: number, to: number): string {
  if (to - from === 1) return hashes[from];
  const k = split(to - from);
  return nodeHash(subtree(hashes, from, from + k), subtree(hashes, from + k, to));
}

/** PATH(m, D[n]): the audit path of leaf m (0-based) in the tree of the first n leaves. */
export function inclusionProof(leaves: readonly string[], m: number, n = leaves.length): string[] {
  if (m < 0 || m >= n || n > leaves.length) throw new RangeError(`leaf ${m} is not in a tree of ${n}`);
  const hashes = leaves.slice(0, n).map(leafHash);
  const path = (from: number, to: number, index: number): string[] => {
    if (to - from === 1) return [];
    const k = split(to - from);
    return index < k ? [...path(from, from + k, index), subtree(hashes, from + k, to)] : [...path(from + k, to, index - k), subtree(hashes, from, from + k)];
  };
  return path(0, n, m);
}

/** PROOF(m, D[n]): that the tree of the first m leaves is a prefix of the tree of n (0 < m ≤ n). */
export function consistencyProof(leaves: readonly string[], m: number, n = leaves.length): string[] {
  if (m <= 0 || m > n || n > leaves.length) throw new RangeError(`no consistency proof from ${m} to ${n}`);
  const hashes = leaves.slice(0, n).map(leafHash);
  const subproof = (mm: number, from: number, to: number, complete: boolean): string[] => {
    const size = to - from;
    if (mm === size) return complete ? [] : [subtree(hashes, from, to)];
    const k = split(size);
    if (mm <= k) return [...subproof(mm, from, from + k, complete), subtree(hashes, from + k, to)];
    return [...subproof(mm - k, from + k, to, false), subtree(hashes, from, from + k)];
  };
  return subproof(m, 0, n, true);
}

/** RFC 9162 §2.1.3.2: whether `path` proves leaf `index` (its data `leafHex`) in the tree of `size` with `root`. */
export function verifyInclusion(leafHex: string, index: number, size: number, path: readonly string[], root: string): boolean {
  if (index < 0 || index >= size) return false;
  let fn = index;
  let sn = size - 1;
  let r = leafHash(leafHex);
  for (const p of path) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn >>= 1;
          sn >>= 1;
        }
      }
    } else r = nodeHash(r, p);
    fn >>= 1;
    sn >>= 1;
  }
  return sn === 0 && r === root;
}

/** RFC 9162 §2.1.4.2: whether `proof` shows the tree (size1, root1) is a prefix of (size2, root2). */
export function verifyConsistency(size1: number, size2: number, proof: readonly string[], root1: string, root2: string): boolean {
  if (size1 <= 0 || size1 > size2) return false;
  if (size1 === size2) return proof.length === 0 && root1 === root2;
  let path = [...proof];
  if ((size1 & (size1 - 1)) === 0) path = [root1, ...path]; // size1 a power of two: its root starts the path
  if (path.length === 0) return false;
  let fn = size1 - 1;
  let sn = size2 - 1;
  while (fn % 2 === 1) {
    fn >>= 1;
    sn >>= 1;
  }
  let fr = path[0];
  let sr = path[0];
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn >>= 1;
          sn >>= 1;
        }
      }
    } else sr = nodeHash(sr, c);
    fn >>= 1;
    sn >>= 1;
  }
  return fr === root1 && sr === root2 && sn === 0;
}
