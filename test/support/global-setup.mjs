import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Every temporary file of the run goes under one directory of its own: the stores, builds and browser
 * profiles the suites make with `mkdtemp(tmpdir())` (a billing-run crash test alone writes half a
 * gigabyte), the child services and the CLI runs they start (TMPDIR is inherited). The jest workers
 * start after this and inherit it too; global-teardown.mjs removes the directory once the run ends.
 */
export default function globalSetup() {
  const dir = mkdtempSync(join(tmpdir(), 'billing-tests-'));
  process.env.BILLING_TESTS_TMPDIR = dir;
  process.env.TMPDIR = dir;
}
