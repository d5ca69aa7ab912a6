import type { DeadlineFields } from '#shared/deadlines.js';
import type { CommandContext } from '#platform/command-context.js';

/** A read-model document time acts on: its id, owner and deadline fields (libs/shared/src/deadlines.ts). */
export interface DeadlineDoc extends DeadlineFields {
  id: string;
  _account: string;
  is_test: boolean;
}

/**
 * One kind of deadline the scheduler runs: the read-model collection whose documents carry the
 * deadline fields (with DEADLINE_INDEX), and the action that turns a due document into commands.
 * `run` decides at `ctx.now` (the deadline's own time on a test clock) and returns the position of the
 * last event it wrote, or null when it decided nothing (a race lost, a condition no longer met).
 */
export interface DeadlineSource {
  /** Unique name, e.g. `subscription`, `checkout_session`. */
  name: string;
  collection: string;
  run(ctx: CommandContext, doc: DeadlineDoc): Promise<string | null>;
}
