import { CallHandler, ExecutionContext, Inject, Injectable, Logger, NestInterceptor, Optional } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { createHash } from 'node:crypto';
import { defer, from, Observable, lastValueFrom } from 'rxjs';
import { type EventStore, expectedRevisionAfter, PRUNED_EVENT_TYPE, type RecordedEvent, WrongExpectedRevisionError } from '#event-store/event-store.port.js';
import { type Clock, CLOCK } from '#shared/clock.js';
import { ApiError } from '#shared/errors.js';
import { newEventUuid, newIdempotencySeed } from '#shared/ids.js';
import { CONFIG, EVENT_STORE } from '#platform/tokens.js';
import type { Config } from '#platform/config.js';
import { SecretVault } from '#platform/sealing.module.js';
import { runInIdempotentScope } from '#shared/idempotent-scope.js';
import { toApiError } from './api-exception.filter.js';
import type { AuthenticatedRequest } from './request-context.js';
import { ValidationApiError } from './validation.js';

/** How long a finished key is remembered (at least 24 hours, as promised), and how long a retry waits for a running first request. */
export const KEY_TTL_MS = 24 * 60 * 60 * 1000;
/** Each key's record is the event-store stream `idempotency-<sha256(account|mode|key)>` (pruned by IdempotencyPruner). */
export const IDEMPOTENCY_STREAM_PREFIX = 'idempotency-';
const WAIT_MS = 30 * 1000;
/**
 * Largest response body kept with a key (EventStoreDB refuses appends near 1 MB). A larger one is
 * recorded as done without its body, and a retry gets it by resuming the request, which appends
 * nothing again (see idempotent-scope.ts), so the record stays bounded and the answer is never lost.
 */
export const MAX_STORED_RESPONSE_BYTES = 256 * 1024;

type Stored = {
  status: number;
  /** The answer; encrypted in the store under the key of the customer it concerns (docs/personal-data.md). */
  body: unknown;
  body_omitted?: boolean;
  /** The answered object's type and id, kept in clear: what a replay names once the body was erased. */
  ref?: { object: string; id: string };
};
/** What a stored body reads as once the customer it concerns was erased (the text placeholder of docs/personal-data.md). */
export const ERASED_RESPONSE = '[erased]';
type KeyState =
  | { kind: 'free' }
  /** Running (or its process stopped): `heartbeat` is the wall-clock ms of its claim or resumption; `resumable` once it failed with a 5xx. */
  | { kind: 'in_flight'; fingerprint: string; seed: string; heartbeat: number; resumable: boolean }
  | { kind: 'done'; fingerprint: string; seed: string; since: number; response: Stored };

function stateOf(events: RecordedEvent[]): KeyState {
  let state = { kind: 'free' } as KeyState;
  for (const e of events) {
    const at = Date.parse(e.metadata.occurred_at);
    const heartbeat = typeof e.data.heartbeat === 'number' ? e.data.heartbeat : at;
    if (e.type === 'idempotency.claimed') {
      state = { kind: 'in_flight', fingerprint: String(e.data.fingerprint), seed: String(e.data.seed ?? e.id), heartbeat, resumable: false };
    } else if (e.type === 'idempotency.resumed' && state.kind === 'in_flight') {
      state = { kind: 'in_flight', fingerprint: state.fingerprint, seed: state.seed, heartbeat, resumable: false };
    } else if (e.type === 'idempotency.failed' && state.kind === 'in_flight') {
      state = { kind: 'in_flight', fingerprint: state.fingerprint, seed: state.seed, heartbeat: state.heartbeat, resumable: true };
    } else if (e.type === 'idempotency.completed' && state.kind === 'in_flight') {
      state = { kind: 'done', fingerprint: state.fingerprint, seed: state.seed, since: at, response: e.data.response as Stored };
    } else if (e.type === 'idempotency.released' || e.type === PRUNED_EVENT_TYPE) state = { kind: 'free' };
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
 * effect; a retry racing the first waits for it (409 `idempotency_key_in_use` after 30 s: retry
 * later). The same key with another body is rejected. Keys live in the event store (stream
 * `idempotency-<hash>`), so every API process sees them and the expected-revision check decides
 * which of two racing requests runs.
 *
 * Crashes: the request runs in an idempotent scope (ids derived from the claim, commands numbered
 * per stream). A retry that finds the key still claimed after the lease (IDEMPOTENCY_LEASE_MS, the
 * first process presumably stopped) or failed with a 5xx resumes the same run: it addresses the same
 * objects, skips what was already appended and finishes the rest, so a key never makes two objects.
 */
/** A body that is not kept (a secret with no vault to seal it in): a retry runs the request again in its scope. */
const OMITTED = Symbol('omitted');

@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private readonly logger = new Logger('idempotency');

  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(CONFIG) private readonly config: Config,
    @Optional() private readonly vault?: SecretVault,
  ) {}

  /**
   * The body to keep with the key: a `secret` it answers (a webhook endpoint's, shown once) is sealed
   * in the vault and kept by reference, never in the idempotency stream's events; a replay opens it.
   */
  private async storable(stream: string, body: unknown): Promise<unknown> {
    const secret = (body as { secret?: unknown } | null)?.secret;
    if (typeof secret !== 'string') return body;
    if (!this.vault) return OMITTED;
    const ref = `idempotency:${stream}:${newIdempotencySeed()}`;
    await this.vault.put(ref, 'idempotent_response_secret', secret);
    return { ...(body as object), secret: undefined, secret_sealed_ref: ref };
  }

  private async replayable(body: unknown): Promise<unknown> {
    const ref = (body as { secret_sealed_ref?: unknown } | null)?.secret_sealed_ref;
    if (typeof ref !== 'string' || !this.vault) return body;
    const { secret_sealed_ref: _ref, ...rest } = body as Record<string, unknown>;
    return { ...rest, secret: await this.vault.open(ref) };
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    const key = request.headers['idempotency-key'];
    if (request.method !== 'POST' || key === undefined || !request.principal) return next.handle();
    if (typeof key !== 'string' || key.length === 0 || key.length > 255) {
      throw new ApiError(400, 'idempotency_error', 'idempotency_key_invalid', 'Idempotency-Key must be 1 to 255 characters.');
    }
    const { accountId, mode } = request.principal;
    const stream = `${IDEMPOTENCY_STREAM_PREFIX}${createHash('sha256').update(`${accountId}|${mode}|${key}`).digest('hex')}`;
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
    // Within the handler timeout (a second before it), so a racing retry hears 409 in_use rather than 503.
    const waitMs = this.config.handlerTimeoutMs > 0 ? Math.min(WAIT_MS, Math.max(0, this.config.handlerTimeoutMs - 1000)) : WAIT_MS;
    const giveUpAt = Date.now() + waitMs;
    for (;;) {
      const history = await this.events.readStream(stream);
      const state = stateOf(history);
      const now = this.clock.now().getTime();
      const revision = expectedRevisionAfter(history);
      const expired = state.kind === 'done' && now - state.since > KEY_TTL_MS;
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
          // Too large to keep: the request is run again in its scope, which appends nothing new.
          if (state.response.body_omitted) return runInIdempotentScope(state.seed, handle);
          if (state.response.body === ERASED_RESPONSE) throw responseErased(state.response);
          return this.replayable(state.response.body);
        }
        if (state.resumable || Date.now() - state.heartbeat > this.config.idempotencyLeaseMs) {
          let resumedRevision: number;
          try {
            const resumed = await this.events.append(stream, [this.event('idempotency.resumed', { request_id: String(request.id), heartbeat: Date.now() }, request)], revision);
            resumedRevision = resumed.nextExpectedRevision;
          } catch (error) {
            if (error instanceof WrongExpectedRevisionError) continue;
            throw error;
          }
          return this.execute(stream, resumedRevision, state.seed, request, handle);
        }
        if (Date.now() > giveUpAt) {
          throw new ApiError(409, 'idempotency_error', 'idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed; retry later.');
        }
        await new Promise((r) => setTimeout(r, 25));
        continue;
      }
      let claimRevision: number;
      const seed = newIdempotencySeed(); // the ids of the request's objects derive from it (time-ordered, like other ids)
      try {
        const claimed = await this.events.append(
          stream,
          [this.event('idempotency.claimed', { fingerprint, seed, request_id: String(request.id), heartbeat: Date.now() }, request)],
          revision,
        );
        claimRevision = claimed.nextExpectedRevision;
      } catch (error) {
        if (error instanceof WrongExpectedRevisionError) continue;
        throw error;
      }
      return this.execute(stream, claimRevision, seed, request, handle);
    }
  }

  private async execute(stream: string, claimRevision: number, seed: string, request: AuthenticatedRequest, handle: () => Promise<unknown>) {
    try {
      const body = await runInIdempotentScope(seed, handle);
      const kept = await this.storable(stream, body);
      const size = kept === OMITTED ? Infinity : Buffer.byteLength(JSON.stringify(kept ?? null));
      const ref = refOf(body);
      const response: Stored = size <= MAX_STORED_RESPONSE_BYTES ? { status: 200, body: kept, ...(ref ? { ref } : {}) } : { status: 200, body: null, body_omitted: true };
      await this.finish(stream, claimRevision, request, 'idempotency.completed', { response });
      return body;
    } catch (error) {
      const apiError = toApiError(error);
      if (error instanceof ValidationApiError) {
        // Refused before any command ran: the key is free again.
        await this.finish(stream, claimRevision, request, 'idempotency.released', {});
      } else if (apiError.status >= 500) {
        // It may have appended part of its work: the next retry resumes it (same scope).
        await this.finish(stream, claimRevision, request, 'idempotency.failed', {});
      } else {
        await this.finish(stream, claimRevision, request, 'idempotency.completed', {
          response: { status: apiError.status, body: apiError.toBody() },
        });
      }
      throw error;
    }
  }

  /**
   * Records the outcome. A failure is logged (never silent); the key then stays claimed, and a retry
   * after the lease resumes the request, which appends nothing again.
   */
  private async finish(stream: string, revision: number, request: AuthenticatedRequest, type: string, data: Record<string, unknown>) {
    try {
      await this.events.append(stream, [this.event(type, data, request)], revision);
    } catch (error) {
      this.logger.error({ msg: 'could not record the outcome of an idempotent request; a retry will resume it', reqId: String(request.id), stream, type, err: String(error) });
    }
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

function refOf(body: unknown): Stored['ref'] | null {
  const b = body as { object?: unknown; id?: unknown } | null;
  return b && typeof b === 'object' && typeof b.object === 'string' && typeof b.id === 'string' ? { object: b.object, id: b.id } : null;
}

/**
 * A replay whose stored answer held personal data of a customer erased since: that answer no longer
 * exists (its key was destroyed with the customer's), and none other is made up in its place. The
 * request did succeed, once; the error says so and names its object, to be read again with a GET.
 */
function responseErased(stored: Stored): ApiError {
  const what = stored.ref ? ` (${stored.ref.object} ${stored.ref.id})` : '';
  return new ApiError(
    409,
    'idempotency_error',
    'idempotency_response_erased',
    `The request with this Idempotency-Key succeeded${what}, but its answer held personal data of a customer erased since, and is no longer kept; retrieve the object for its current state.`,
    null,
    stored.ref ? { resource: { object: stored.ref.object, id: stored.ref.id } } : {},
  );
}

/** A stored 4xx answer, replayed as it was first sent. */
export class ReplayedError extends ApiError {
  constructor(stored: Stored) {
    // Every field of the stored error body is replayed (a payment error's decline_code, charge, …).
    const { type, code, message, param, ...extra } = (stored.body as { error: { type: ApiError['type']; code: string; message: string; param: string | null } }).error;
    super(stored.status, type, code, message, param, extra);
  }
}
