import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../shared/src/errors.js';
import { isPagePath } from '../../web/src/web-platform.js';
import { sendErrorPage } from '../../web/src/page-errors.js';

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
    if (error.status >= 500) {
      this.logger.error({ msg: 'unhandled error', reqId: request?.id, err: String((exception as Error)?.stack ?? exception) });
    }
    if (error.status === 401) reply.header('WWW-Authenticate', 'Basic realm="billing"');
    reply.status(error.status).send(error.toBody());
  }
}

export function toApiError(exception: unknown): ApiError {
  if (exception instanceof ApiError) return exception;
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    if (status === 404) return new ApiError(404, 'invalid_request_error', 'resource_missing', 'Unrecognized request URL.');
    if (status === 405) return new ApiError(405, 'invalid_request_error', 'method_not_allowed', 'Method not allowed.');
    if (status < 500) return new ApiError(status, 'invalid_request_error', 'invalid_request', exception.message);
  }
  // Errors raised by Fastify while reading the request (bad JSON, wrong content type, too large).
  const fastify = exception as { statusCode?: number; code?: string; message?: string };
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
