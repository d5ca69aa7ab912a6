import { rmSync } from 'node:fs';

/** Removes the run's temporary directory (global-setup.mjs); KEEP_TEST_TMP=1 keeps it to look into. */
export default function globalTeardown() {
  const dir = process.env.BILLING_TESTS_TMPDIR;
  if (!dir) return;
  if (process.env.KEEP_TEST_TMP === '1') {
    process.stderr.write(`test files kept in ${dir}\n`);
    return;
  }
  rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}
