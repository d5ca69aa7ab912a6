import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

// jest.config.js: global-setup.mjs gives the run one temporary directory, global-teardown.mjs removes it.
test("a suite's temporary files go under the run's own directory (removed when the run ends)", () => {
  const runDir = process.env.BILLING_TESTS_TMPDIR;
  expect(runDir).toMatch(/billing-tests-/);
  expect(tmpdir()).toBe(runDir);
  const made = mkdtempSync(join(tmpdir(), 'probe-'));
  expect(relative(runDir!, made)).toMatch(/^probe-/);
});
