/**
 * What a test measures for whoever reads it (how many writes filled the disk, the statuses a fuzzer
 * got, how long a crash test took): printed only with TEST_VERBOSE=1, so a plain `npm test` shows the
 * outcome and nothing else. The assertions do not depend on it.
 */
export function verbose(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.TEST_VERBOSE === '1';
}

/** Writes `text` (one or more lines) on stderr when TEST_VERBOSE=1; nothing otherwise. */
export function report(text: string): void {
  if (verbose()) process.stderr.write(`\n${text}\n`);
}
