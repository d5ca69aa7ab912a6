import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { PageError } from './page-errors.js';
import { verifyCsrf } from './security.js';

/** Every page POST: the form's `_csrf` must match the visitor's secret cookie, else a friendly 403 page. */
@Injectable()
export class CsrfGuard implements CanActivate {
  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (request.method === 'GET' || request.method === 'HEAD') return true;
    if (!(await verifyCsrf(request))) throw new PageError(403, 'csrf');
    return true;
  }
}
