import type { ParkedProjection } from './projection-pipeline.js';

/** A request waited for a projection that is parked behind the position it needs. */
export class ProjectionParkedError extends Error {
  constructor(readonly parked: ParkedProjection[]) {
    super(
      `projection ${parked.map((p) => p.id).join(', ')} is parked at ${parked.map((p) => `${p.event_type} ${p.event_id}`).join(', ')}: ${parked[0].error}`,
    );
    this.name = 'ProjectionParkedError';
  }
}

/** What a waiter needs of each projection: how far it has committed, and whether it is parked. */
export interface LaneState {
  checkpoint: string | null;
  parked: ParkedProjection | null;
}

/** Whether every projection has committed `position` (true), not yet (false), or never will until resumed (a parked one behind it). */
export function positionState(lanes: Iterable<LaneState>, position: string): true | false | ProjectionParkedError {
  // Called for every waiter after every batch: nothing allocated unless a projection is parked.
  let parked: ParkedProjection[] | null = null;
  let behind = false;
  for (const lane of lanes) {
    if (lane.checkpoint !== null && lane.checkpoint >= position) continue;
    behind = true;
    if (lane.parked) (parked ??= []).push(lane.parked);
  }
  if (!behind) return true;
  return parked ? new ProjectionParkedError(parked) : false;
}

/**
 * Read-your-writes waiters, wherever the pipeline runs (ProjectionPipeline, PipelineThread):
 * `wait(position)` resolves true once every projection has committed it, false after `timeoutMs`, and
 * rejects with ProjectionParkedError as soon as a projection that has not got there is parked;
 * `release()` settles them whenever the checkpoints or the parked projections change.
 */
export class PositionWaiters {
  private readonly waiters = new Set<{ position: string; resolve: () => void; reject: (e: Error) => void; giveUp: () => void }>();

  constructor(private readonly lanes: () => Iterable<LaneState>) {}

  state(position: string): true | false | ProjectionParkedError {
    return positionState(this.lanes(), position);
  }

  /** `added`: called when the position is not committed yet and the waiter is added (the pipeline wakes its loop). */
  wait(position: string, timeoutMs: number, added?: () => void): Promise<boolean> {
    const state = this.state(position);
    if (state === true) return Promise.resolve(true);
    if (state instanceof Error) return Promise.reject(state);
    return new Promise((resolve, reject) => {
      const waiter = {
        position,
        resolve: () => {
          clearTimeout(timer);
          resolve(true);
        },
        reject: (e: Error) => {
          clearTimeout(timer);
          reject(e);
        },
        giveUp: () => {
          clearTimeout(timer);
          resolve(false);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        resolve(false);
      }, timeoutMs);
      this.waiters.add(waiter);
      added?.();
    });
  }

  /** Whether a waiter needs a position some projection has not committed yet. */
  someoneWaits(): boolean {
    for (const w of this.waiters) if (this.state(w.position) === false) return true;
    return false;
  }

  /** The pipeline stopped here: every waiter is answered false now (ProjectionEngine.waitFor goes on against the stored checkpoints). */
  giveUp(): void {
    for (const w of this.waiters) w.giveUp();
    this.waiters.clear();
  }

  release(): void {
    for (const w of this.waiters) {
      const state = this.state(w.position);
      if (state === false) continue;
      this.waiters.delete(w);
      if (state === true) w.resolve();
      else w.reject(state);
    }
  }
}
