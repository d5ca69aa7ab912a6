import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { addressAllowed } from '../domain/url-policy.js';

export const USER_AGENT = 'billing-service-webhooks/0.1 (+https://www.standardwebhooks.com)';
/** How much of a receiver's answer the delivery log keeps. */
export const RESPONSE_BODY_LIMIT = 1024;

export interface WebhookRequest {
  url: string;
  mode: 'test' | 'live';
  /** `webhook-id`: the event's `evt_` id, the same on every retry. */
  id: string;
  body: string;
  /** The secrets that sign it (several during a rotation's overlap: one signature each). */
  secrets: string[];
  /** Wall-clock time of the attempt: `webhook-timestamp`. */
  at: Date;
  timeoutMs: number;
}

export interface WebhookResponse {
  ok: boolean;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  response_body: string | null;
}

const signers = new Map<string, Webhook>();
function signer(secret: string): Webhook {
  let s = signers.get(secret);
  if (!s) {
    s = new Webhook(secret);
    if (signers.size > 10_000) signers.clear();
    signers.set(secret, s);
  }
  return s;
}

/** The Standard Webhooks headers of one message: `v1,<base64 HMAC-SHA256 of id.timestamp.body>` per secret, space-separated. */
export function signedHeaders(id: string, at: Date, body: string, secrets: string[]): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((s) => signer(s).sign(id, at, body)).join(' '),
  };
}

class AddressRefused extends Error {}

/** DNS lookup that refuses (for this mode) loopback, private and link-local answers: checked on every connection. */
const guardedLookup =
  (mode: 'test' | 'live'): LookupFunction =>
  (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const refused = addresses.find((a) => !addressAllowed(a.address, mode));
      if (refused || addresses.length === 0) {
        return callback(new AddressRefused(`${hostname} resolves to a forbidden address`) as NodeJS.ErrnoException, '', 0);
      }
      if ((options as { all?: boolean }).all) (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      else callback(null, addresses[0].address, addresses[0].family);
    });
  };

const agents = new Map<string, http.Agent>();
function agentFor(url: URL, mode: 'test' | 'live'): http.Agent {
  const key = `${mode} ${url.origin}`;
  let agent = agents.get(key);
  if (!agent) {
    const options = { keepAlive: true, maxSockets: 16, lookup: guardedLookup(mode) };
    agent = url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
    agents.set(key, agent);
  }
  return agent;
}

/**
 * One POST of a signed message. Success is a 2xx status within `timeoutMs`; an error status, the
 * timeout, a refused connection, a TLS or DNS error, a forbidden address are failures. Never throws.
 */
export function sendWebhook(req: WebhookRequest, monotonicNow: () => number = () => performance.now()): Promise<WebhookResponse> {
  const started = monotonicNow();
  const done = (r: Omit<WebhookResponse, 'duration_ms'>): WebhookResponse => ({ ...r, duration_ms: Math.round(monotonicNow() - started) });
  return new Promise((resolve) => {
    let settled = false;
    const finish = (r: Omit<WebhookResponse, 'duration_ms'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(done(r));
    };
    let url: URL;
    try {
      url = new URL(req.url);
    } catch {
      return finish({ ok: false, status_code: null, error: 'invalid_url', response_body: null });
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) !== 0 && !addressAllowed(host, req.mode)) {
      return finish({ ok: false, status_code: null, error: 'address_forbidden', response_body: null });
    }
    const headers = { ...signedHeaders(req.id, req.at, req.body, req.secrets), 'content-length': String(Buffer.byteLength(req.body)) };
    const client = url.protocol === 'https:' ? https : http;
    const request = client.request(url, { method: 'POST', headers, agent: agentFor(url, req.mode) }, (response) => {
      const status = response.statusCode ?? 0;
      const ok = status >= 200 && status < 300;
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        if (body.length < RESPONSE_BODY_LIMIT) body += chunk;
      });
      const end = () => finish({ ok, status_code: status, error: ok ? null : 'http_status', response_body: body.slice(0, RESPONSE_BODY_LIMIT) });
      response.on('end', end);
      response.on('error', end);
      response.on('aborted', end);
    });
    const timer = setTimeout(() => {
      finish({ ok: false, status_code: null, error: 'timeout', response_body: null });
      request.destroy();
    }, req.timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) => {
      const code = error instanceof AddressRefused ? 'address_forbidden' : (error.code ?? 'request_failed');
      finish({ ok: false, status_code: null, error: String(code).toLowerCase(), response_body: null });
    });
    request.end(req.body);
  });
}
