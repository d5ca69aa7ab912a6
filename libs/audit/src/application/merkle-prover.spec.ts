import { createHash } from 'node:crypto';
import { inclusionProof, merkleRoot, verifyInclusion } from '../domain/merkle.js';
import { MerkleProver } from './merkle-prover.js';

const leaf = (i: number) => createHash('sha256').update(`event ${i}`).digest('hex');

describe('MerkleProver (proofs of many leaves, the tree never held)', () => {
  it('gives the audit paths inclusionProof gives, for every leaf of trees around block boundaries', async () => {
    for (const block of [1, 2, 4]) {
      for (let n = 1; n <= 19; n += 1) {
        const all = Array.from({ length: n }, (_, i) => leaf(i));
        let reads = 0;
        const prover = new MerkleProver(async (from, count) => {
          reads += 1;
          return all.slice(from, from + Math.min(count, 3)); // short pages too
        }, n, block);
        for (let m = 0; m < n; m += 1) {
          const path = await prover.prove(m);
          expect(path).toEqual(inclusionProof(all, m));
          expect(verifyInclusion(all[m], m, n, path, merkleRoot(all))).toBe(true);
        }
        expect(reads).toBeGreaterThan(0);
      }
    }
  });

  it('refuses a leaf outside the tree', async () => {
    const prover = new MerkleProver(async () => [leaf(0)], 1);
    await expect(prover.prove(1)).rejects.toThrow(RangeError);
  });
});
