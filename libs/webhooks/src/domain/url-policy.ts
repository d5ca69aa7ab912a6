import { BlockList, isIP } from 'node:net';
import { invalidParam } from '#shared/errors.js';

/**
 * Where webhooks may be sent (server-side request forgery): live endpoints only to `https` URLs of
 * public addresses; test endpoints to the same, or to this machine (`http(s)://localhost`,
 * `127.0.0.0/8`, `[::1]`) for development. Private, link-local, CGNAT, multicast and reserved
 * addresses are refused in both modes. Pure: the DNS answers are checked by the sender with
 * `addressAllowed` on every connection, so a name that later resolves elsewhere is refused too.
 */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

const FORBIDDEN = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  FORBIDDEN.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['::', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
  ['64:ff9b::', 96],
] as const) {
  FORBIDDEN.addSubnet(net, bits, 'ipv6');
}

const isLoopback = (address: string) => LOOPBACK.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');

/** `::ffff:10.0.0.1` → `10.0.0.1`, so mapped addresses meet the IPv4 rules. */
function unmapped(address: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return m ? m[1] : address;
}

/** May a request of this mode connect to this IP address? */
export function addressAllowed(rawAddress: string, mode: 'test' | 'live'): boolean {
  const address = unmapped(rawAddress);
  const family = isIP(address);
  if (family === 0) return false;
  if (isLoopback(address)) return mode === 'test';
  return !FORBIDDEN.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

const LOCAL_NAMES = new Set(['localhost', 'localhost.']);

/** The URL an endpoint is created or updated with, checked for its mode; returns it normalised. */
export function checkEndpointUrl(value: unknown, mode: 'test' | 'live', param = 'url'): string {
  if (typeof value !== 'string' || value.length === 0) throw invalidParam(param, `${param} must be an absolute http(s) URL`);
  if (value.length > 2048) throw invalidParam(param, `${param} must be at most 2048 characters long`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidParam(param, `${param} must be an absolute http(s) URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalidParam(param, `${param} must be an http(s) URL`);
  if (url.username || url.password) throw invalidParam(param, `${param} must not carry a user name or password`);
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const local = LOCAL_NAMES.has(host) || (isIP(host) !== 0 && isLoopback(unmapped(host)));
  if (mode === 'live') {
    if (url.protocol !== 'https:') throw invalidParam(param, `A live-mode endpoint must use https`);
    if (local || (isIP(host) !== 0 && !addressAllowed(host, 'live'))) {
      throw invalidParam(param, `${param} must not point at a loopback, private or link-local address`);
    }
  } else {
    if (url.protocol === 'http:' && !local) throw invalidParam(param, `A test-mode endpoint must use https, or http on localhost`);
    if (isIP(host) !== 0 && !addressAllowed(host, 'test')) throw invalidParam(param, `${param} must not point at a private or link-local address`);
  }
  url.hash = '';
  return url.toString();
}
