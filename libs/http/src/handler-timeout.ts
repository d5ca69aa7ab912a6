import type { FastifyInstance } from 'fastify';
import { ApiError } from '#shared/errors.js';

/** 503 `handler_timeout`: the answer took too long; the work may still finish (retry with the same Idempotency-Key). */
export const handlerTimeout = (ms: number) =>
  new ApiError(
    503,
    'api_error',
    'handler_timeout',
    `The request was not processed within ${ms / 1000} s. It may still complete: retry with the same Idempotency-Key to get its result (without a key, check whether it took effect before repeating it).`,
  );

/**
 * Per-request handler timeout on `/v1` (HANDLER_TIMEOUT_MS, default 30 s; 0 = off): counted from when
 * the request has been received and parsed (receiving it has its own timeout, REQUEST_TIMEOUT_MS → 408)
 * to the answer. When it passes, the client gets 503 `handler_timeout` (with `Retry-After: 1`) at once;
 * the handler is not interrupted — a command that has started appending finishes, and under an
 * Idempotency-Key its outcome is recorded as usual, so a retry with the key gets that outcome (or waits
 * for it) and never runs the command twice. Whatever the handler answers later is dropped.
 */
export function registerHandlerTimeout(fastify: FastifyInstance, timeoutMs: number): void {
  if (timeoutMs <= 0) return;
  fastify.addHook('preHandler', (request, reply, done) => {
    if (!request.url.startsWith('/v1/')) return done();
    const timer = setTimeout(() => {
      if (reply.sent || reply.raw.headersSent) return;
      const error = handlerTimeout(timeoutMs);
      reply.status(error.status).header('Retry-After', '1').send(error.toBody());
    }, timeoutMs);
    timer.unref();
    reply.raw.once('close', () => clearTimeout(timer));
    done();
  });
}
