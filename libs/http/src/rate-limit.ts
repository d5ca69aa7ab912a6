import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import type { Config } from '#platform/config.js';
import { ApiError } from '#shared/errors.js';

/** The API key of a request (Basic user name or Bearer token), or null. */
function apiKeyOf(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return null;
  const [scheme, value = ''] = header.split(' ', 2);
  if (/^bearer$/i.test(scheme)) return value.trim() || null;
  if (/^basic$/i.test(scheme)) return Buffer.from(value, 'base64').toString('utf8').split(':')[0] || null;
  return null;
}

/** 429 `rate_limit` in the API's shape (Retry-After is set by the plugin). */
class RateLimitedError extends ApiError {
  readonly statusCode = 429;
}

/**
 * Per-key rate limit on `/v1` (a key belongs to one account and mode): `max` requests per window,
 * counted in this process; beyond it 429 with `Retry-After` (seconds). Unauthenticated requests are
 * counted by client address. Off when `max` is 0.
 */
export async function registerRateLimit(fastify: FastifyInstance, config: Config): Promise<void> {
  if (config.rateLimit.max === 0) return;
  await fastify.register(rateLimit, {
    global: true,
    max: config.rateLimit.max,
    timeWindow: config.rateLimit.windowMs,
    hook: 'onRequest',
    allowList: (request) => !request.url.startsWith('/v1/'),
    keyGenerator: (request) => {
      const key = apiKeyOf(request);
      return key ? `key:${createHash('sha256').update(key).digest('hex')}` : `ip:${request.ip}`;
    },
    addHeadersOnExceeding: { 'x-ratelimit-limit': true, 'x-ratelimit-remaining': true, 'x-ratelimit-reset': true },
    addHeaders: { 'x-ratelimit-limit': true, 'x-ratelimit-remaining': true, 'x-ratelimit-reset': true, 'retry-after': true },
    errorResponseBuilder: (_request, context) =>
      new RateLimitedError(429, 'invalid_request_error', 'rate_limit', `Too many requests with this key: at most ${context.max} per ${context.after === '1 second' ? 'second' : context.after}. Retry after the number of seconds in Retry-After.`),
  });
}
