import { Injectable } from '@nestjs/common';
import { invalidState } from '#shared/errors.js';

/**
 * The advances under way in this process. A second advance (or a delete) of a clock this process is
 * advancing is refused at once (409) instead of running the clock's deadlines twice side by side;
 * across processes the deadlines' own expected revisions keep each effect single.
 */
@Injectable()
export class ClockAdvances {
  private readonly running = new Set<string>();

  isRunning(clockId: string): boolean {
    return this.running.has(clockId);
  }

  refuseIfRunning(clockId: string): void {
    if (this.running.has(clockId)) throw invalidState(`Test clock ${clockId} is advancing; wait until it is ready`);
  }

  async run<T>(clockId: string, work: () => Promise<T>): Promise<T> {
    this.refuseIfRunning(clockId);
    this.running.add(clockId);
    try {
      return await work();
    } finally {
      this.running.delete(clockId);
    }
  }
}
