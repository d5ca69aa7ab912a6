import { SetMetadata } from '@nestjs/common';
import { ApiError } from '#shared/errors.js';
import type { ApiKeyAccess, ApiKeyResource } from '#accounts/domain/api-key.js';

export const API_RESOURCE = 'billing:api-resource';

/**
 * The API resource a controller's routes (or one route, overriding its class) belong to, for
 * restricted keys: GET and HEAD need `read` on it, any other method `write` (the guard checks it
 * before the handler, the idempotency record and the body's validation). A route without one is
 * refused to every restricted key.
 */
export const ApiResource = (resource: ApiKeyResource) => SetMetadata(API_RESOURCE, resource);

/** What a request needs on its route's resource: read for GET and HEAD, write for anything else. */
export const accessFor = (method: string): ApiKeyAccess => (method === 'GET' || method === 'HEAD' ? 'read' : 'write');

/** 403: a restricted key outside its permissions (nothing was done). */
export const permissionDenied = (resource: ApiKeyResource | null, access: ApiKeyAccess) =>
  new ApiError(
    403,
    'invalid_request_error',
    'permission_denied',
    resource ? `This API key lacks the permission ${resource}: ${access}.` : 'Restricted API keys cannot use this endpoint: use a secret key.',
    null,
  );
