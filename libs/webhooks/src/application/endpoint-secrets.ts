import { randomBytes } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { SecretVault } from '#platform/sealing.module.js';
import { DomainError, invalidParam } from '#shared/errors.js';
import { randomBase62 } from '#shared/ids.js';
import { addressAllowed } from '../domain/url-policy.js';
import type { SigningSecret } from '../domain/webhook-endpoint.decider.js';

/** A new signing secret in the Standard Webhooks form: `whsec_` + base64 of 32 random bytes. */
export const newSigningSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/**
 * A new signing secret, sealed and kept in the vault before any event names it: the events and the
 * read model hold only `ref`; the plain secret goes back once, in the answer.
 */
export async function sealedSigningSecret(vault: SecretVault, endpointId: string): Promise<{ secret: string; ref: string }> {
  const secret = newSigningSecret();
  const ref = `whsec:${endpointId}:${randomBase62(16)}`;
  await vault.put(ref, 'webhook_signing_secret', secret);
  return { secret, ref };
}

/**
 * A write refused by the decider (bad input, an unknown endpoint) names no secret: the one sealed
 * for it is forgotten. Any other failure keeps it (the event may have been appended).
 */
export const discardOnRefusal = (vault: SecretVault, ref: string) => async (error: unknown): Promise<never> => {
  if (error instanceof DomainError) await vault.discard(ref);
  throw error;
};

/** The plain secrets of signing entries (opened from the vault; an old endpoint's plain secret as it is). */
export async function openSigningSecrets(vault: SecretVault, secrets: readonly SigningSecret[]): Promise<string[]> {
  const out: string[] = [];
  for (const s of secrets) {
    if (s.secret_ref === undefined) out.push(s.secret);
    else {
      const opened = await vault.open(s.secret_ref);
      if (opened === null) throw new Error(`The sealed signing secret ${s.secret_ref} is missing from sealed_secrets`);
      out.push(opened);
    }
  }
  return out;
}

/**
 * A live endpoint's host must resolve, and only to public addresses (SSRF). Checked when the URL
 * is set; the sender checks every connection's addresses again (a name may change its answer).
 */
export async function checkResolvesPublicly(url: unknown, mode: 'test' | 'live'): Promise<void> {
  if (mode !== 'live' || typeof url !== 'string') return;
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return; // the decider refuses it with the reason
  }
  if (isIP(host) !== 0) return;
  let addresses: { address: string }[];
  try {
    addresses = await lookup(host, { all: true });
  } catch {
    throw invalidParam('url', `The host ${host} of url does not resolve`);
  }
  if (addresses.length === 0 || addresses.some((a) => !addressAllowed(a.address, 'live'))) {
    throw invalidParam('url', 'url must not point at a loopback, private or link-local address');
  }
}
