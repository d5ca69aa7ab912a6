import { Injectable } from '@nestjs/common';

/** Which deadlines a run covers: real time (`clock: null`) or one test clock's objects. */
export interface DeadlineScope {
  clock: string | null;
}

export interface RunResult {
  /** Deadlines acted on. */
  ran: number;
  /** Position of the last event written, for read-your-writes. */
  position: string | null;
}

/**
 * Turns deadlines into commands. (Skeleton: the implementation lands next.)
 */
@Injectable()
export class Scheduler {
  /** Runs every deadline of `scope` due at or before `until`, in time order; a test clock's at the deadline's own time. */
  async runDue(_scope: DeadlineScope, _until: Date): Promise<RunResult> {
    return { ran: 0, position: null };
  }
}
