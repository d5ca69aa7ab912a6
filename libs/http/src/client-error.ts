import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError } from '#shared/errors.js';

/**
 * What Node's HTTP parser refuses before Fastify routes anything (headers over its 16 KiB limit, a
 * method or request line it cannot parse, a request not received in time), answered in the API's error
 * shape instead of Fastify's `{"error":"Bad Request","message":"Client Error","statusCode":400}`. The
 * connection is closed afterwards, as Node does: the parser cannot go on reading it.
 */
export function clientErrorAnswer(error: NodeJS.ErrnoException): ApiError {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError(408, 'invalid_request_error', 'request_timeout', 'The request was not received in time.');
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError(431, 'invalid_request_error', 'headers_too_large', 'The request headers are too large (at most 16 KiB in all).');
    default:
      return new ApiError(400, 'invalid_request_error', 'request_malformed', 'The request could not be read as HTTP/1.1 (request line, method or headers).');
  }
}

/** Fastify's `clientErrorHandler`: writes the answer on the raw socket (no request object exists yet) and closes it. */
export function handleClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const answer = clientErrorAnswer(error);
  const body = JSON.stringify(answer.toBody());
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
