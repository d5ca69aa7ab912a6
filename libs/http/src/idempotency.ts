import { CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { createHash } from 'node:crypto';
import { defer, from, Observable, lastValueFrom } from 'rxjs';
import { type EventStore, expectedRevisionAfter, type RecordedEvent, WrongExpectedRevisionError } from '../../event-store/src/event-store.port.js';
import { type Clock, CLOCK } from '../../shared/src/clock.js';
import { ApiError } from '../../shared/src/errors.js';
import { newEventUuid } from '../../shared/src/ids.js';
import { EVENT_STORE } from '../../platform/src/tokens.js';
import { toApiError } from './api-exception.filter.js';
import type { AuthenticatedRequest } from './request-context.js';
import { ValidationApiError } from './validation.js';

/** How long a key is remembered, and how long an unfinished first request holds it. */
const KEY_TTL_MS = 24 * 60 * 60 * 1000;
const IN_FLIGHT_TTL_MS = 60 * 1000;
const WAIT_MS = 30 * 1000;

type Stored = { status: number; body: unknown };
type KeyState =
  | { kind: 'free' }
  | { kind: 'in_flight'; fingerprint: string; since: number }
  | { kind: 'done'; fingerprint: string; since: number; response: Stored };

function stateOf(events: RecordedEvent[]): KeyState {
  let state: KeyState = { kind: 'free' };
  for (const e of events) {
    const at = Date.parse(e.metadata.occurred_at);
    if (e.type === 'idempotency.claimed') state = { kind: 'in_flight', fingerprint: String(e.data.fingerprint), since: at };
    else if (e.type === 'idempotency.completed' && state.kind === 'in_flight')
      state = { kind: 'done', fingerprint: state.fingerprint, since: at, response: e.data.response as Stored };
    else if (e.type === 'idempotency.released') state = { kind: 'free' };
  }
  return state;
}

/** Stable JSON (sorted keys) so that the same body always has the same fingerprint. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * `Idempotency-Key` on POST: the first request's response (200 or a 4xx decided by the service)
 * is kept for 24 hours and returned to retries with the same key and body, without a second
 * effect; a retry racing the first waits for it. The same key with another body is rejected.
 * Keys live in the event store (stream `idempotency-<hash>`), so every API process sees them and
 * the expected-revision check decides which of two racing requests runs.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    const key = request.headers['idempotency-key'];
    if (request.method !== 'POST' || key === undefined || !request.principal) return next.handle();
    if (typeof key !== 'string' || key.length === 0 || key.length > 255) {
      throw new ApiError(400, 'idempotency_error', 'idempotency_key_invalid', 'Idempotency-Key must be 1 to 255 characters.');
    }
    const { accountId, mode } = request.principal;
    const stream = `idempotency-${createHash('sha256').update(`${accountId}|${mode}|${key}`).digest('hex')}`;
    const fingerprint = createHash('sha256')
      .update(`${request.method} ${request.url}\n${canonical(request.body)}`)
      .digest('hex');
    return defer(() => from(this.run(stream, fingerprint, request, reply, () => lastValueFrom(next.handle()))));
  }

  private async run(
    stream: string,
    fingerprint: string,
    request: AuthenticatedRequest,
    reply: FastifyReply,
    handle: () => Promise<unknown>,
  ): Promise<unknown> {
    const giveUpAt = Date.now() + WAIT_MS;
    for (;;) {
      const history = await this.events.readStream(stream);
      const state = stateOf(history);
      const now = this.clock.now().getTime();
      const revision = expectedRevisionAfter(history);
      const expired = state.kind === 'done' ? now - state.since > KEY_TTL_MS : state.kind === 'in_flight' ? now - state.since > IN_FLIGHT_TTL_MS : true;
      if (state.kind !== 'free' && !expired) {
        if (state.fingerprint !== fingerprint) {
          throw new ApiError(
            400,
            'idempotency_error',
            'idempotency_key_reused',
            'Keys for idempotent requests can only be used with the same parameters they were first used with.',
          );
        }
        if (state.kind === 'done') {
          reply.header('Idempotent-Replayed', 'true');
          if (state.response.status >= 400) throw new ReplayedError(state.response);
          return state.response.body;
        }
        if (Date.now() > giveUpAt) {
          throw new ApiError(409, 'idempotency_error', 'idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed; retry later.');
        }
        await new Promise((r) => setTimeout(r, 25));
        continue;
      }
      let claimRevision: number;
      try {
        const claimed = await this.events.append(stream, [this.event('idempotency.claimed', { fingerprint, request_id: String(request.id) }, request)], revision);
        claimRevision = claimed.nextExpectedRevision;
      } catch (error) {
        if (error instanceof WrongExpectedRevisionError) continue;
        throw error;
      }
      return this.execute(stream, claimRevision, request, handle);
    }
  }

  private async execute(stream: string, claimRevision: number, request: AuthenticatedRequest, handle: () => Promise<unknown>) {
    try {
      const body = await handle();
      await this.finish(stream, claimRevision, request, 'idempotency.completed', { response: { status: 200, body } });
      return body;
    } catch (error) {
      const apiError = toApiError(error);
      if (apiError.status >= 500 || error instanceof ValidationApiError) {
        await this.finish(stream, claimRevision, request, 'idempotency.released', {});
      } else {
        await this.finish(stream, claimRevision, request, 'idempotency.completed', {
          response: { status: apiError.status, body: apiError.toBody() },
        });
      }
      throw error;
    }
  }

  private async finish(stream: string, revision: number, request: AuthenticatedRequest, type: string, data: Record<string, unknown>) {
    await this.events.append(stream, [this.event(type, data, request)], revision).catch(() => undefined);
  }

  private event(type: string, data: Record<string, unknown>, request: AuthenticatedRequest) {
    return {
      id: newEventUuid(),
      type,
      data,
      metadata: {
        account_id: request.principal?.accountId,
        mode: request.principal?.mode,
        request_id: String(request.id),
        occurred_at: this.clock.now().toISOString(),
      },
    };
  }
}

/** A stored 4xx answer, replayed as it was first sent. */
export class ReplayedError extends ApiError {
  constructor(stored: Stored) {
    // Every field of the stored error body is replayed (a payment error's decline_code, charge, …).
    const { type, code, message, param, ...extra } = (stored.body as { error: { type: ApiError['type']; code: string; message: string; param: string | null } }).error;
    super(stored.status, type, code, message, param, extra);
  }
}
