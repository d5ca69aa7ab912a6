import { Injectable } from '@nestjs/common';
import { ownedBy } from '#shared/owner.js';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import { invalidParam, notFound } from '#shared/errors.js';
import { type TestClockState, testClockDecider, testClockStream } from '../domain/test-clock.decider.js';

/**
 * The time of the objects that live on a test clock, for the other contexts: commands about an
 * object on a clock are decided at the clock's `frozen_time` (`CommandContext.now`), which moves only
 * when an advance finishes. Reads the clock's stream (never a read model), so it is exact right after
 * a write.
 */
@Injectable()
export class TestClockTime {
  constructor(private readonly executor: AggregateExecutor) {}

  /** The clock as its stream says (the initial state when there is no such clock). */
  async state(clockId: string): Promise<TestClockState> {
    return (await this.executor.load(testClockDecider, testClockStream(clockId))).state;
  }

  /**
   * `ctx` with `now` at the clock's frozen time and `testClock` set; `ctx` itself when `clockId` is
   * null, or when it already carries that clock and a time (the scheduler running a deadline at the
   * deadline's own time). A deleted clock keeps its last frozen time. 404 for a clock the caller
   * cannot see.
   */
  async contextFor(ctx: CommandContext, clockId: string | null | undefined): Promise<CommandContext> {
    if (clockId === null || clockId === undefined) return ctx;
    if (ctx.testClock === clockId && ctx.now) return ctx;
    const state = ctx.mode === 'test' ? await this.state(clockId) : null;
    if (!state || !ownedBy(state, ctx)) throw notFound('test_clock', clockId, 'test_clock');
    return { ...ctx, now: new Date(state.fields!.frozen_time), testClock: clockId };
  }

  /**
   * A clock a new object may be put on (`param` names the field): test mode only (400 for a live
   * key, which never sees a clock), the caller's own, existing and not deleted (404).
   */
  async attachable(ctx: CommandContext, clockId: string, param = 'test_clock'): Promise<TestClockState> {
    if (ctx.mode !== 'test') throw invalidParam(param, 'Test clocks are only available with a test key');
    if (typeof clockId !== 'string' || clockId.length === 0) throw invalidParam(param, `${param} must be a test clock id`);
    const state = await this.state(clockId);
    if (!ownedBy(state, ctx) || state.deleted) {
      throw notFound('test_clock', clockId, param);
    }
    return state;
  }
}
