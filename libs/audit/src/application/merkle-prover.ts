import { inclusionProof, merkleRoot, nodeHash } from '../domain/merkle.js';

/** Reads `count` leaves (the entries' event_hash, hex) from leaf `from` of the account's chain. */
export type LeafReader = (from: number, count: number) => Promise<string[]>;

/** Leaves per block: proofs below a block are computed from one read of it. */
const BLOCK = 1024;

/**
 * RFC 6962 inclusion proofs of many leaves of one tree (`size` leaves) without holding the tree: the
 * export's proofs (docs/audit.md §6). The tree's nodes of at most `block` leaves are never kept: a
 * proof's lower part is computed from one read of its block (`inclusionProof` of domain/merkle.ts),
 * its upper part from the roots of larger nodes, each computed once and kept (about 2·size/block
 * hashes). Every node of the RFC 6962 tree of at most `block` leaves whose parent is larger is an
 * aligned block or the tail block (the split is at powers of two), so the two parts meet there.
 * The same audit paths as `inclusionProof(leaves, m, size)`.
 */
export class MerkleProver {
  private readonly roots = new Map<string, string>();
  private lastBlock: { from: number; leaves: string[] } | null = null;

  constructor(
    private readonly read: LeafReader,
    readonly size: number,
    private readonly block = BLOCK,
  ) {}

  private async leaves(from: number, to: number): Promise<string[]> {
    if (this.lastBlock?.from === from && this.lastBlock.leaves.length === to - from) return this.lastBlock.leaves;
    const out: string[] = [];
    while (from + out.length < to) {
      const page = await this.read(from + out.length, to - from - out.length);
      if (page.length === 0) throw new Error(`the chain has fewer than ${to} entries`);
      out.push(...page);
    }
    this.lastBlock = { from, leaves: out };
    return out;
  }

  /** The root of the node over leaves [from, to). */
  private async root(from: number, to: number): Promise<string> {
    if (to - from <= this.block) return merkleRoot(await this.leaves(from, to));
    const key = `${from}:${to}`;
    const known = this.roots.get(key);
    if (known) return known;
    const k = split(to - from);
    const root = nodeHash(await this.root(from, from + k), await this.root(from + k, to));
    this.roots.set(key, root);
    return root;
  }

  /** The audit path of leaf m (0 ≤ m < size), leaf to root. */
  async prove(m: number): Promise<string[]> {
    if (!(Number.isInteger(m) && m >= 0 && m < this.size)) throw new RangeError(`leaf ${m} is not in a tree of ${this.size}`);
    const upper: string[] = [];
    let from = 0;
    let to = this.size;
    while (to - from > this.block) {
      const k = split(to - from);
      if (m < from + k) {
        upper.push(await this.root(from + k, to));
        to = from + k;
      } else {
        upper.push(await this.root(from, from + k));
        from += k;
      }
    }
    const lower = inclusionProof(await this.leaves(from, to), m - from);
    return [...lower, ...upper.reverse()];
  }
}

/** The largest power of two smaller than n (n > 1), as domain/merkle.ts splits. */
function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}
