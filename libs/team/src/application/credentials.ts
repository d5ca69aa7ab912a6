import { DomainError } from '#shared/errors.js';
import { checkPassword, hashPassword, PASSWORD_RULES } from '../infrastructure/passwords.js';
import { parseLinkToken, secretMatches } from '../infrastructure/tokens.js';
import type { LinkTokenDoc, PasswordCredential, TeamStores } from '../infrastructure/team-stores.js';

/** The link token's record when its secret matches and it has not expired; null otherwise (one answer for all). */
export async function validLinkToken(stores: TeamStores, token: string, kind: LinkTokenDoc['kind'], now: Date): Promise<LinkTokenDoc | null> {
  const parsed = parseLinkToken(token);
  if (!parsed) return null;
  const doc = await stores.token(parsed.id);
  if (!doc || doc.kind !== kind || Date.parse(doc.expires_at) <= now.getTime() || !secretMatches(parsed.secret, doc.hash)) return null;
  return doc;
}

const PASSWORD_MESSAGES = {
  too_short: `The password must have at least ${PASSWORD_RULES.minLength} characters`,
  too_long: `The password must have at most ${PASSWORD_RULES.maxLength} characters`,
  too_common: 'That password is too common or too easy to guess: choose a longer, less predictable one (a few unrelated words work well)',
} as const;

/** A new password credential (argon2id hash) once the password passes the rules; `parameter_invalid` naming `password` otherwise. */
export async function checkedPasswordCredential(password: string, o: { accountId: string; member: string; email: string | null; accountName?: string | null; now: Date; id: string }): Promise<PasswordCredential> {
  const problem = await checkPassword(String(password ?? ''), { email: o.email, accountName: o.accountName ?? null });
  if (problem) throw new DomainError(`password_${problem}`, PASSWORD_MESSAGES[problem], 'password', 400);
  return { id: o.id, account_id: o.accountId, member: o.member, kind: 'password', hash: await hashPassword(password), created_at: o.now.toISOString() };
}
