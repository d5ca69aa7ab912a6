import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import { notFound } from '#shared/errors.js';
import { ownedBy } from '#shared/owner.js';
import { laterPosition } from '#event-store/positions.js';
import { TestClockTime } from '#test-clocks/application/test-clock-time.js';
import { type CheckoutSessionCommand, type CheckoutSessionState, checkoutSessionDecider, checkoutSessionStream } from '../domain/checkout-session.decider.js';
import { settleSessionHolds } from './session-holds.js';

/** Loads a session the caller owns (404 otherwise) and the context it is decided in (its customer's test clock). */
export async function loadSession(executor: AggregateExecutor, clocks: TestClockTime, request: CommandContext, sessionId: string): Promise<{ state: CheckoutSessionState; ctx: CommandContext }> {
  const { state } = await executor.load(checkoutSessionDecider, checkoutSessionStream(sessionId));
  if (!ownedBy(state, request)) throw notFound('checkout session', sessionId);
  return { state, ctx: await clocks.contextFor(request, state.fields!.test_clock) };
}

/**
 * Runs one command on a session's stream (expected revision, retried on conflict). When it paid or
 * expired the session, the use of its payment link and its coupons' redemptions are settled
 * (session-holds.ts); `position` is then the last of those writes.
 */
export async function onSession(executor: AggregateExecutor, ctx: CommandContext, sessionId: string, command: (now: Date) => CheckoutSessionCommand) {
  const done = await executor.execute(checkoutSessionDecider, checkoutSessionStream(sessionId), command, ctx);
  if (done.events.length === 0 || !done.state.fields) return done;
  const settled = await settleSessionHolds(executor, ctx, sessionId, done.state.fields, done.events);
  return settled === null ? done : { ...done, position: laterPosition(done.position, settled) };
}
