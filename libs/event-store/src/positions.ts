/**
 * Global positions are opaque strings that sort in the store's global order:
 * the commit and prepare positions, each as 20 zero-padded digits, joined by '/'.
 * The embedded store uses its row sequence for both halves.
 */
const WIDTH = 20;

export function encodePosition(commit: bigint, prepare: bigint = commit): string {
  return `${commit.toString().padStart(WIDTH, '0')}/${prepare.toString().padStart(WIDTH, '0')}`;
}

/**
 * The position before every event (commit and prepare 0): where a follower that starts on an empty store
 * begins, so that a checkpoint exists before anything is appended. Reading after it reads from the start.
 */
export const BEFORE_FIRST_POSITION = encodePosition(0n);

export function decodePosition(position: string): { commit: bigint; prepare: bigint } {
  const match = /^(\d{20})\/(\d{20})$/.exec(position);
  if (!match) throw new Error(`not a position: ${position}`);
  return { commit: BigInt(match[1]), prepare: BigInt(match[2]) };
}

/** True when `a` is at or after `b` in the global order (null = before everything). */
export function isAtOrAfter(a: string | null | undefined, b: string | null | undefined): boolean {
  if (b == null) return true;
  if (a == null) return false;
  return a >= b;
}

/** The later of two positions (null = nothing written): where read-your-writes must wait for after several appends. */
export function laterPosition(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return a > b ? a : b;
}
