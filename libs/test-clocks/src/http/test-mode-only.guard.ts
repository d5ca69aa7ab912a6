import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { AuthenticatedRequest } from '#http/request-context.js';
import { testClocksTestModeOnly } from '../domain/test-clock.decider.js';

/** Every test clock endpoint: 403 `test_mode_only` for a live key, before the body is even read. */
@Injectable()
export class TestModeOnlyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const principal = context.switchToHttp().getRequest<AuthenticatedRequest>().principal;
    if (principal?.mode !== 'test') throw testClocksTestModeOnly();
    return true;
  }
}
