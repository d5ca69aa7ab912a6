import { randomBytes } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { invalidParam } from '#shared/errors.js';
import { addressAllowed } from '../domain/url-policy.js';

/** A new signing secret in the Standard Webhooks form: `whsec_` + base64 of 32 random bytes. */
export const newSigningSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

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
