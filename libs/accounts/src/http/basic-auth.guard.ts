import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiError } from '#shared/errors.js';
import type { AuthenticatedRequest } from '#http/request-context.js';
import { accessFor, API_RESOURCE, permissionDenied } from '#http/api-resource.js';
import { AuthenticateApiKey } from '../application/authenticate-api-key.js';
import { type ApiKeyResource, permits } from '../domain/api-key.js';

export const PUBLIC_ROUTE = 'billing:public-route';

/** Routes marked public (health, docs) skip authentication. */
export const Public = () => (target: object, key?: string | symbol, descriptor?: PropertyDescriptor) => {
  Reflect.defineMetadata(PUBLIC_ROUTE, true, descriptor ? descriptor.value : target);
  return descriptor ?? target;
};

const unauthenticated = (code: string, message: string) => new ApiError(401, 'authentication_error', code, message);

/**
 * `Authorization: Basic base64(<secret key>:)` — the key is the user name, the password empty
 * (`curl -u sk_test_…:`). `Bearer <secret key>` is accepted too. An unknown, expired or revoked key
 * is 401 `invalid_api_key`; a restricted key (`rk_`) outside its permission on the route's resource
 * (`@ApiResource`) is 403 `permission_denied`, before anything else runs.
 */
@Injectable()
export class BasicAuthGuard implements CanActivate {
  constructor(
    private readonly auth: AuthenticateApiKey,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, [context.getHandler(), context.getClass()])) return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const key = keyFromHeader(request.headers.authorization);
    if (key === null) {
      throw unauthenticated('missing_api_key', 'No API key provided. Use HTTP Basic authentication with your secret key as the user name and an empty password.');
    }
    const principal = await this.auth.authenticate(key);
    if (!principal) throw unauthenticated('invalid_api_key', 'Invalid API key provided.');
    if (principal.kind === 'restricted') {
      const resource = this.reflector.getAllAndOverride<ApiKeyResource | undefined>(API_RESOURCE, [context.getHandler(), context.getClass()]) ?? null;
      const access = accessFor(request.method);
      if (resource === null || !permits(principal.permissions, resource, access)) throw permissionDenied(resource, access);
    }
    request.principal = principal;
    return true;
  }
}

export function keyFromHeader(header: string | undefined): string | null {
  if (!header) return null;
  const [scheme, value] = header.trim().split(/\s+/, 2);
  if (!value) return null;
  if (/^bearer$/i.test(scheme)) return value;
  if (!/^basic$/i.test(scheme)) return null;
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon === -1 ? decoded : decoded.slice(0, colon);
}
