import argon2 from 'argon2';

/**
 * Members' passwords: the rules a new password must pass, and its argon2id hash.
 *
 * Length is counted in characters (Unicode code points) of the NFKC form, and the same NFKC form is
 * what is hashed and verified (NIST SP 800-63B §5.1.1.2): a password typed as decomposed accents on
 * one device and composed on another is the same password.
 */
export const PASSWORD_RULES = { minLength: 12, maxLength: 128 } as const;

/** zxcvbn scores (0–4) below this are refused as too easy to guess. */
export const MIN_PASSWORD_SCORE = 3;

export type PasswordProblem = 'too_short' | 'too_long' | 'too_common';

/**
 * argon2id at 64 MiB, 3 passes, 1 lane: measured ~135 ms per hash or verify on this 2-core machine
 * (idle), under the ~150 ms budget, so preferred to OWASP's minimum (19 MiB, t=2, p=1: ~27 ms).
 * One lane: the machine has two cores shared by every request; a verify must not take both.
 * Changing these does not break stored hashes (each hash names its own parameters).
 */
export const ARGON2_PARAMETERS = { type: argon2.argon2id, memoryCost: 65_536, timeCost: 3, parallelism: 1 } as const;

const normalised = (password: string) => password.normalize('NFKC');

type Checker = (password: string, userInputs: string[]) => number;
let checker: Promise<Checker> | null = null;

/**
 * zxcvbn-ts v4 (a ZxcvbnFactory holding its options; no global `zxcvbnOptions`) with the common
 * dictionaries and keyboard graphs, loaded on the first check only (the dictionaries are ~1.5 MB) and
 * kept. Levenshtein matching is off: it costs ~100 ms of blocked event loop per check here and
 * changed no verdict on the passwords we tried.
 */
function loadChecker(): Promise<Checker> {
  checker ??= (async (): Promise<Checker> => {
    const [{ ZxcvbnFactory }, common] = await Promise.all([import('@zxcvbn-ts/core'), import('@zxcvbn-ts/language-common')]);
    const zxcvbn = new ZxcvbnFactory({ dictionary: { ...common.dictionary }, graphs: common.adjacencyGraphs, useLevenshteinDistance: false });
    return (password: string, userInputs: string[]) => zxcvbn.check(password, userInputs).score;
  })().catch((error: unknown) => {
    checker = null; // a failed load is tried again next time
    throw error;
  });
  return checker;
}

/** The e-mail, its parts and the account's name, as zxcvbn user inputs (a password built from them is weak). */
function userInputsOf(context: { email?: string | null; accountName?: string | null }): string[] {
  const inputs = new Set<string>();
  for (const value of [context.email, context.accountName]) {
    const text = value?.trim().toLowerCase();
    if (!text) continue;
    inputs.add(text);
    const words = text.split(/[^\p{L}\p{N}]+/u).filter((w) => w.length >= 3);
    for (const word of words) inputs.add(word);
    const local = text.split('@')[0];
    inputs.add(local);
    inputs.add(local.replace(/[^\p{L}\p{N}]+/gu, ''));
    inputs.add(text.replace(/[^\p{L}\p{N}]+/gu, ''));
  }
  return [...inputs].filter((w) => w.length > 0);
}

/**
 * Why a new password is refused, or null when it may be used. Asynchronous: the first call loads
 * the strength estimator (later calls only wait a resolved promise).
 */
export async function checkPassword(password: string, context: { email?: string | null; accountName?: string | null }): Promise<PasswordProblem | null> {
  const length = [...normalised(password)].length;
  if (length < PASSWORD_RULES.minLength) return 'too_short';
  if (length > PASSWORD_RULES.maxLength) return 'too_long';
  const score = (await loadChecker())(normalised(password), userInputsOf(context));
  return score < MIN_PASSWORD_SCORE ? 'too_common' : null;
}

/** The argon2id hash of a password (PHC string: `$argon2id$v=19$m=…,t=…,p=…$salt$hash`, random salt). */
export function hashPassword(password: string): Promise<string> {
  return argon2.hash(normalised(password), ARGON2_PARAMETERS);
}

/** Whether the password is the hashed one. False, never an exception, for a malformed or foreign hash. */
export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  if (typeof hash !== 'string' || !hash.startsWith('$argon2') || typeof password !== 'string') return false;
  try {
    return await argon2.verify(hash, normalised(password));
  } catch {
    return false;
  }
}

/**
 * An argon2id hash with ARGON2_PARAMETERS of a random password nobody knows (generated once for this
 * file; passwords.spec.ts checks it still matches the parameters).
 */
export const DECOY_HASH = '$argon2id$v=19$m=65536,t=3,p=1$KXVxxaPb1q8s7m5UJ5fp9A$3S3wtpwIJkKm9RqRNliS+ScjMCaox2DBVY3cWLebiqQ';

/**
 * A verify that always fails and costs what a real one costs: sign-in with an unknown e-mail (or a
 * member without a password) takes as long as a wrong password, so timing tells no e-mail apart.
 */
export async function verifyNothing(): Promise<false> {
  await verifyPassword(DECOY_HASH, 'not the decoy password');
  return false;
}
