import { createHash } from 'node:crypto';
import { consistencyProof, inclusionProof, leafHash, merkleRoot, nodeHash, verifyConsistency, verifyInclusion } from './merkle.js';

const leaf = (i: number) => createHash('sha256').update(`event ${i}`).digest('hex');
const leaves = (n: number) => Array.from({ length: n }, (_, i) => leaf(i));

describe('RFC 6962 Merkle tree hash', () => {
  it('hashes the empty tree, a leaf and a node with the 0x00/0x01 prefixes (the RFC test vectors)', () => {
    expect(merkleRoot([])).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    // The Certificate Transparency test vector for the empty leaf: SHA-256(0x00).
    expect(leafHash('')).toBe('6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d');
    expect(merkleRoot([leaf(0)])).toBe(leafHash(leaf(0)));
    expect(merkleRoot(leaves(3))).toBe(nodeHash(nodeHash(leafHash(leaf(0)), leafHash(leaf(1))), leafHash(leaf(2))));
  });

  it('proves every leaf of every tree up to 17 leaves, and no altered leaf or wrong index', () => {
    for (let n = 1; n <= 17; n += 1) {
      const all = leaves(n);
      const root = merkleRoot(all);
      for (let m = 0; m < n; m += 1) {
        const path = inclusionProof(all, m);
        expect(verifyInclusion(all[m], m, n, path, root)).toBe(true);
        expect(verifyInclusion(leaf(999), m, n, path, root)).toBe(false);
        if (n > 1) expect(verifyInclusion(all[m], (m + 1) % n, n, path, root)).toBe(false);
      }
    }
  });

  it('proves each older tree a prefix of each newer one, and refuses a tree that rewrote a leaf', () => {
    for (let n = 1; n <= 17; n += 1) {
      const all = leaves(n);
      for (let m = 1; m <= n; m += 1) {
        const proof = consistencyProof(all, m);
        expect(verifyConsistency(m, n, proof, merkleRoot(all.slice(0, m)), merkleRoot(all))).toBe(true);
        if (m < n) {
          const rewritten = [...all];
          rewritten[0] = leaf(1000);
          expect(verifyConsistency(m, n, consistencyProof(rewritten, m), merkleRoot(all.slice(0, m)), merkleRoot(rewritten))).toBe(false);
        }
      }
    }
  });
});
