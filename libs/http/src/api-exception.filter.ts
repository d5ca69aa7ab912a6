import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '#shared/errors.js';
import { isStoreUnavailable } from '#shared/store-unavailable.js';
import { isPagePath } from '#web/web-platform.js';
import { sendErrorPage } from '#web/page-errors.js';

/** Maps every failure to `{"error": {"type", "code", "message", "param"}}`; only real bugs are 5xx. */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('api');

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    // A person's browser on a page path (unknown page, bad form) gets an HTML page, never JSON.
    if (request && isPagePath(request.url)) {
      sendErrorPage(request, reply, exception);
      return;
    }
    const error = toApiError(exception);
    if (error.code === 'store_unavailable') {
      this.logger.error({ msg: 'store unavailable', reqId: request?.id, err: String((exception as Error)?.message ?? exception) });
    } else if (error.status >= 500) {
      this.logger.error({ msg: 'unhandled error', reqId: request?.id, err: String((exception as Error)?.stack ?? exception) });
    }
    if (error.status === 401) reply.header('WWW-Authenticate', 'Basic realm="billing"');
    if (error.code === 'store_unavailable') reply.header('Retry-After', '1');
    reply.status(error.status).send(error.toBody());
  }
}

/** What Fastify (or Nest) refuses before a route runs, in the API's words. */
function byStatus(status: number | undefined): ApiError | null {
  switch (status) {
    case 413:
      return new ApiError(413, 'invalid_request_error', 'body_too_large', 'The request body is too large.');
    case 408:
      return new ApiError(408, 'invalid_request_error', 'request_timeout', 'The request was not received in time.');
    case 414:
      return new ApiError(414, 'invalid_request_error', 'uri_too_long', 'The request URL or one of its path parameters is too long.');
    case 415:
      return new ApiError(415, 'invalid_request_error', 'unsupported_media_type', 'Send the request body as JSON with the header Content-Type: application/json.');
    default:
      return null;
  }
}

/** A store that cannot take writes now (disk full, read-only, I/O error): 503, retry later. */
export const storeUnavailable = () =>
  new ApiError(
    503,
    'api_error',
    'store_unavailable',
    'The service cannot record changes right now (its data store is full, read-only or failing); nothing more was recorded. Retry later with the same Idempotency-Key.',
  );

export function toApiError(exception: unknown): ApiError {
  if (exception instanceof ApiError) return exception;
  if (isStoreUnavailable(exception)) return storeUnavailable();
  const framework = byStatus((exception as { statusCode?: number })?.statusCode ?? (exception instanceof HttpException ? exception.getStatus() : undefined));
  if (framework) return framework;
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    if (status === 404) return new ApiError(404, 'invalid_request_error', 'resource_missing', 'Unrecognized request URL.');
    if (status === 405) return new ApiError(405, 'invalid_request_error', 'method_not_allowed', 'Method not allowed.');
    if (status < 500) return new ApiError(status, 'invalid_request_error', 'invalid_request', exception.message);
  }
  // Errors raised by Fastify while reading the request (bad JSON, wrong content type, too large).
  const fastify = exception as { statusCode?: number; code?: string; message?: string };
  if (fastify?.code === 'FST_ERR_BAD_URL') return new ApiError(400, 'invalid_request_error', 'url_invalid', 'The request URL is not valid.');
  if (fastify && typeof fastify.statusCode === 'number' && fastify.statusCode >= 400 && fastify.statusCode < 500) {
    const code =
      fastify.statusCode === 415
        ? 'unsupported_media_type'
        : fastify.statusCode === 413
          ? 'body_too_large'
          : 'body_invalid';
    const message =
      code === 'body_invalid' ? 'The request body is not valid JSON.' : code === 'unsupported_media_type' ? 'Send the body as application/json.' : 'The request body is too large.';
    return new ApiError(fastify.statusCode, 'invalid_request_error', code, message);
  }
  return new ApiError(500, 'api_error', 'internal_error', 'An internal error occurred; it has been logged.');
}
