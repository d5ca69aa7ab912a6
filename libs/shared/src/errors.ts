/**
 * Errors that reach the API caller. Every rejection becomes
 * `{"error": {"type", "code", "message", "param"}}` with the HTTP status below.
 */
export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'idempotency_error'
  /** A payment attempt was made and failed (declined card, insufficient funds): HTTP 402. */
  | 'payment_error'
  | 'api_error';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: ErrorType,
    readonly code: string,
    message: string,
    readonly param: string | null = null,
    /** Further fields of the error body (e.g. `decline_code`, `collection`, `charge` on a payment error). */
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toBody() {
    return { error: { type: this.type, code: this.code, message: this.message, param: this.param, ...this.extra } };
  }
}

/** A rule of the domain refused the command. Thrown by deciders; nothing was written. */
export class DomainError extends ApiError {
  constructor(code: string, message: string, param: string | null = null, status = 400) {
    super(status, 'invalid_request_error', code, message, param);
    this.name = 'DomainError';
  }
}

export const invalidParam = (param: string, message: string) => new DomainError('parameter_invalid', message, param);
export const missingParam = (param: string, message = `${param} is required`) =>
  new DomainError('parameter_missing', message, param);
export const notFound = (resource: string, id: string, param: string | null = 'id') =>
  new DomainError('resource_missing', `No such ${resource}: '${id}'`, param, 404);
export const alreadyExists = (message: string, param: string | null) =>
  new DomainError('resource_already_exists', message, param, 409);
export const invalidState = (message: string, param: string | null = null) =>
  new DomainError('invalid_state', message, param, 409);

/** A payment attempt failed at the gateway (recorded on the collection): 402 with the decline details. */
export const paymentFailed = (code: string, message: string, extra: Record<string, unknown>) =>
  new ApiError(402, 'payment_error', code, message, null, extra);
