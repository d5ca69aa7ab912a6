import type { FastifyInstance } from 'fastify';
import { ApiError } from '#shared/errors.js';
import { ValidationApiError } from './validation.js';

/** Deepest nesting of objects and arrays a body may have (the deepest DTO needs 5). */
export const MAX_BODY_DEPTH = 32;

/** C0 control characters (NUL included) except tab, line feed and carriage return. */
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/;
const CONTROL_IN_KEY = /[\u0000-\u001f\u007f]/;
/** A UTF-16 surrogate without its partner: JSON allows it (`"\ud800"`), UTF-8 (BSON, SQLite text) cannot hold it. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** `meta_data[order.id]`: the Stripe-style parameter path; keys shown with control characters escaped. */
function paramPath(path: Array<string | number>): string {
  const shown = (p: string | number) => (typeof p === 'number' ? String(p) : JSON.stringify(p).slice(1, -1));
  return path.map((p, i) => (i === 0 ? shown(p) : `[${shown(p)}]`)).join('');
}

const invalid = (path: Array<string | number>, message: string) => {
  const param = paramPath(path);
  return new ValidationApiError(400, 'invalid_request_error', 'parameter_invalid', message.replace('{param}', param), param);
};

/**
 * Depth of the deepest `[`/`{` nesting of a JSON text, counted without parsing (brackets inside
 * strings ignored), so a hostile body never reaches a recursive parser or validator.
 */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) max = Math.max(max, ++depth);
    else if (c === 125 || c === 93) depth--;
  }
  return max;
}

/**
 * Refuses what no store can hold or what would be dangerous to hand on: keys with control
 * characters, `$`-prefixed or dotted keys (MongoDB field names), `__proto__`; string values with a
 * NUL or another control character (tab, line feed, carriage return allowed) or a lone surrogate.
 * Throws a 400 naming the first offending field.
 */
export function checkStorable(value: unknown, path: Array<string | number> = []): void {
  if (typeof value === 'string') {
    if (CONTROL.test(value)) throw invalid(path, '{param} must not contain NUL or other control characters.');
    if (LONE_SURROGATE.test(value)) throw invalid(path, '{param} must be valid Unicode text.');
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((v, i) => checkStorable(v, [...path, i]));
    return;
  }
  if (value && typeof value === 'object') {
    for (const key of Object.keys(value)) {
      const here = [...path, key];
      if (key === '__proto__') throw invalid(here, '{param}: the key __proto__ is not allowed.');
      if (CONTROL_IN_KEY.test(key)) throw invalid(here, '{param}: keys must not contain NUL or other control characters.');
      if (LONE_SURROGATE.test(key)) throw invalid(here, '{param}: keys must be valid Unicode text.');
      if (key.startsWith('$')) throw invalid(here, '{param}: keys must not start with "$".');
      if (key.includes('.')) throw invalid(here, '{param}: keys must not contain ".".');
      checkStorable((value as Record<string, unknown>)[key], here);
    }
  }
}

/** Parses a JSON body: depth capped (400 body_too_deep), then every key and string checked (checkStorable). */
export function parseJsonBody(text: string): unknown {
  if (text.length === 0) return undefined;
  if (jsonDepth(text) > MAX_BODY_DEPTH) {
    throw new ValidationApiError(400, 'invalid_request_error', 'body_too_deep', `The request body is nested more than ${MAX_BODY_DEPTH} levels deep.`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ValidationApiError(400, 'invalid_request_error', 'body_invalid', 'The request body is not valid JSON.');
  }
  checkStorable(parsed);
  return parsed;
}

/**
 * The API's JSON body parser (replacing Fastify's) and the rule that a `/v1` request with a body
 * must send `Content-Type: application/json` (415 otherwise; bodiless POSTs need no type).
 */
export function registerJsonBody(fastify: FastifyInstance): void {
  fastify.removeContentTypeParser(['application/json', 'text/plain']);
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  fastify.addHook('onRequest', async (request) => {
    if (!request.url.startsWith('/v1/') || request.method === 'GET' || request.method === 'DELETE' || request.method === 'HEAD') return;
    const length = request.headers['content-length'];
    const hasBody = request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
    if (!hasBody) return;
    const type = (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (type !== 'application/json') {
      throw new ApiError(415, 'invalid_request_error', 'unsupported_media_type', 'Send the request body as JSON with the header Content-Type: application/json.');
    }
  });
}
