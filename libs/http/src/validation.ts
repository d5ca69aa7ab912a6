import { type ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { ApiError } from '#shared/errors.js';
import { memoizeValidationMetadata } from './validation-metadata-cache.js';

/** A request that failed validation before any command ran (its result is never stored for idempotency). */
export class ValidationApiError extends ApiError {}

/** `items[0][price]`: the Stripe-style path of a nested parameter. */
function paramPath(path: string[]): string {
  return path.map((p, i) => (i === 0 ? p : `[${p}]`)).join('');
}

function firstError(errors: ValidationError[], path: string[] = []): { path: string[]; error: ValidationError } | null {
  for (const error of errors) {
    const here = [...path, error.property];
    if (error.constraints && Object.keys(error.constraints).length) return { path: here, error };
    const nested = firstError(error.children ?? [], here);
    if (nested) return nested;
  }
  return null;
}

export function toValidationError(errors: ValidationError[]): ApiError {
  const found = firstError(errors);
  if (!found) return new ValidationApiError(400, 'invalid_request_error', 'parameter_invalid', 'Invalid request.');
  const param = paramPath(found.path);
  const constraints = found.error.constraints!;
  if (constraints.whitelistValidation) {
    return new ValidationApiError(400, 'invalid_request_error', 'parameter_unknown', `Received unknown parameter: ${param}`, param);
  }
  // A constraint that fails on an absent value means the parameter is required.
  const code = found.error.value === undefined ? 'parameter_missing' : 'parameter_invalid';
  const message = code === 'parameter_missing' ? `Missing required param: ${param}.` : Object.values(constraints)[0].replace(found.error.property, param);
  return new ValidationApiError(400, 'invalid_request_error', code, message, param);
}

/**
 * A query parameter sent empty (`?object_id=`) is refused by name rather than read as "no filter": a
 * client whose variable was unset would otherwise get the whole list and take it for the filtered one.
 */
class ApiValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'query' && value && typeof value === 'object') {
      for (const [name, v] of Object.entries(value as Record<string, unknown>)) {
        if (v === '' || (Array.isArray(v) && v.includes(''))) {
          throw new ValidationApiError(400, 'invalid_request_error', 'parameter_invalid', `${name} must not be empty: leave it out to not filter by it.`, name);
        }
      }
    }
    return super.transform(value, metadata);
  }
}

/** Bodies and queries: unknown fields rejected by name, types checked, nothing coerced silently. */
export function apiValidationPipe(): ValidationPipe {
  memoizeValidationMetadata();
  return new ApiValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: true },
    stopAtFirstError: true,
    exceptionFactory: toValidationError,
  });
}
