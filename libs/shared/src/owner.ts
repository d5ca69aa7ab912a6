/** Whose an object is: a merchant account, in test or live mode. Another owner's object is "not found". */
export interface Owner {
  accountId: string;
  mode: 'test' | 'live';
}

/** True when the aggregate exists and belongs to `owner` (same account, same mode). */
export function ownedBy(state: { exists: boolean; owner: Owner | null } | null | undefined, owner: Owner): boolean {
  return Boolean(state?.exists && state.owner && state.owner.accountId === owner.accountId && state.owner.mode === owner.mode);
}
