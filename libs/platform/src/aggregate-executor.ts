import { Inject, Injectable } from '@nestjs/common';
import { type EventStore, expectedRevisionAfter, type NewEvent, WrongExpectedRevisionError } from '../../event-store/src/event-store.port.js';
import { type Clock, CLOCK } from '../../shared/src/clock.js';
import { Decider, DomainEvent } from '../../shared/src/decider.js';
import { ApiError } from '../../shared/src/errors.js';
import { newEventUuid } from '../../shared/src/ids.js';
import { currentIdempotentScope, nextStep } from '../../shared/src/idempotent-scope.js';
import type { CommandContext } from './command-context.js';
import { EVENT_STORE } from './tokens.js';
import { eventsAppended } from './metrics.js';

export interface Execution<S> {
  state: S;
  /** Events appended by this command (empty when the decider had nothing to say). */
  events: NewEvent[];
  /** Global position of the last appended event, for read-your-writes. */
  position: string | null;
}

const MAX_ATTEMPTS = 8;

/**
 * The write path of every command: load the stream, fold it into state, decide, append with the
 * expected revision; on a concurrent write, reload and decide again.
 */
@Injectable()
export class AggregateExecutor {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The time a command for `ctx` is decided at: the context's own time (test clock, deadline), else the clock's. */
  now(ctx?: Pick<CommandContext, 'now'> | null): Date {
    return ctx?.now ? new Date(ctx.now.getTime()) : this.clock.now();
  }

  async load<S, E extends DomainEvent>(decider: Decider<any, S, E>, streamId: string) {
    const history = await this.store.readStream(streamId);
    const state = history.reduce((s, e) => decider.evolve(s, e as unknown as E), decider.initialState);
    // The last event's own revision: a truncated or scavenged stream starts after revision 0.
    const expected = expectedRevisionAfter(history);
    return { state, revision: expected === 'no_stream' ? -1 : expected, history };
  }

  async execute<C, S, E extends DomainEvent>(
    decider: Decider<C, S, E>,
    streamId: string,
    command: (now: Date) => C,
    ctx: CommandContext | null,
  ): Promise<Execution<S>> {
    // A request with an Idempotency-Key numbers its commands per stream and command type; when a
    // resumed run (after a crash) finds this command's events already appended by the interrupted
    // run, it skips it.
    const scope = ctx?.idempotencyKey ? currentIdempotentScope() : undefined;
    let step: string | null = null;
    for (let attempt = 1; ; attempt++) {
      const { state, revision, history } = await this.load(decider, streamId);
      const now = this.now(ctx);
      const decision = command(now);
      if (scope) {
        if (step === null) {
          const type = String((decision as { type?: unknown }).type ?? 'command');
          step = `${type}#${nextStep(scope, `${streamId}|${type}`)}`;
        }
        const done = history.filter((e) => e.metadata.idempotency_scope === scope.seed && e.metadata.idempotency_step === step);
        if (done.length) return { state, events: [], position: done[done.length - 1].position };
      }
      const decided = decider.decide(decision, state);
      if (decided.length === 0) return { state, events: [], position: null };
      const events: NewEvent[] = decided.map((e) => ({
        id: newEventUuid(),
        type: e.type,
        data: e.data as Record<string, unknown>,
        metadata: {
          account_id: ctx?.accountId,
          mode: ctx?.mode,
          request_id: ctx?.requestId ?? undefined,
          idempotency_key: ctx?.idempotencyKey ?? null,
          causation_id: ctx?.causationId ?? ctx?.requestId ?? undefined,
          correlation_id: ctx?.correlationId ?? ctx?.requestId ?? undefined,
          occurred_at: now.toISOString(),
          ...(scope && step ? { idempotency_scope: scope.seed, idempotency_step: step } : {}),
          ...(ctx?.actor ? { actor: ctx.actor } : {}),
        },
      }));
      try {
        const result = await this.store.append(streamId, events, revision < 0 ? 'no_stream' : revision);
        eventsAppended.inc({ category: streamId.split('-')[0] }, events.length);
        return { state: decided.reduce((s, e) => decider.evolve(s, e), state), events, position: result.position };
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError) || attempt >= MAX_ATTEMPTS) {
          if (error instanceof WrongExpectedRevisionError) {
            throw new ApiError(409, 'invalid_request_error', 'concurrent_update', 'The object was changed by another request; retry.');
          }
          throw error;
        }
        await new Promise((r) => setTimeout(r, Math.random() * 5 * attempt));
      }
    }
  }
}
