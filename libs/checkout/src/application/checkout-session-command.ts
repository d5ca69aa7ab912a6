import { AggregateExecutor } from '../../../platform/src/aggregate-executor.js';
import type { CommandContext } from '../../../platform/src/command-context.js';
import { notFound } from '../../../shared/src/errors.js';
import { ownedBy } from '../../../shared/src/owner.js';
import { TestClockTime } from '../../../test-clocks/src/application/test-clock-time.js';
import { type CheckoutSessionCommand, type CheckoutSessionState, checkoutSessionDecider, checkoutSessionStream } from '../domain/checkout-session.decider.js';

/** Loads a session the caller owns (404 otherwise) and the context it is decided in (its customer's test clock). */
export async function loadSession(executor: AggregateExecutor, clocks: TestClockTime, request: CommandContext, sessionId: string): Promise<{ state: CheckoutSessionState; ctx: CommandContext }> {
  const { state } = await executor.load(checkoutSessionDecider, checkoutSessionStream(sessionId));
  if (!ownedBy(state, request)) throw notFound('checkout session', sessionId);
  return { state, ctx: await clocks.contextFor(request, state.fields!.test_clock) };
}

/** Runs one command on a session's stream (expected revision, retried on conflict). */
export function onSession(executor: AggregateExecutor, ctx: CommandContext, sessionId: string, command: (now: Date) => CheckoutSessionCommand) {
  return executor.execute(checkoutSessionDecider, checkoutSessionStream(sessionId), command, ctx);
}
