import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { CommandContext } from '#platform/command-context.js';
import type { Principal } from '#accounts/application/authenticate-api-key.js';

export type AuthenticatedRequest = FastifyRequest & { principal?: Principal };

export function commandContextOf(request: AuthenticatedRequest): CommandContext {
  const principal = request.principal;
  if (!principal) throw new Error('route is not authenticated');
  const key = request.headers['idempotency-key'];
  return {
    accountId: principal.accountId,
    mode: principal.mode,
    requestId: String(request.id),
    idempotencyKey: typeof key === 'string' ? key : null,
  };
}

/** The caller's account, mode, request id and idempotency key, as a CommandContext. */
export const Ctx = createParamDecorator((_: unknown, context: ExecutionContext) =>
  commandContextOf(context.switchToHttp().getRequest<AuthenticatedRequest>()),
);
