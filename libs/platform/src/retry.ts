/**
 * Runs `work` until it succeeds, waiting 250 ms, 500 ms, 1 s, … (at most 5 s) between tries, for at
 * most `maxMs` in all; then throws the last error. `onRetry` hears each failure (for the log).
 */
export async function retryWithBackoff<T>(
  work: () => Promise<T>,
  options: { maxMs: number; onRetry?: (error: unknown, attempt: number, delayMs: number) => void; sleep?: (ms: number) => Promise<void> },
): Promise<T> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  let waited = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      const delay = Math.min(5000, 250 * 2 ** (attempt - 1));
      if (waited + delay > options.maxMs) throw error;
      options.onRetry?.(error, attempt, delay);
      await sleep(delay);
      waited += delay;
    }
  }
}
