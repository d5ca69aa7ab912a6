const { relative } = require('node:path');

/**
 * Prints one plain closing line after everything jest prints, e.g. `tests: 148 passed, 0 failed, 2 skipped`,
 * the form CI reads to count what ran.
 *
 * Before it, what a quiet run should not have: the test files that wrote to the console (a run prints
 * only the outcome; measurements wait for TEST_VERBOSE=1, expected errors are asserted through the
 * test logger, test/support/test-logs.ts), and the suites skipped with their reason (a contract suite
 * whose server URL is not set). Listed, never failed: a new test's harmless output does not break CI.
 */
class SummaryReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
    this.noisy = [];
    this.skipped = new Set();
  }

  onTestResult(_test, result) {
    const file = relative(this.rootDir, result.testFilePath);
    const lines = (result.console ?? []).reduce((n, entry) => n + String(entry.message).split('\n').length, 0);
    if (lines > 0) this.noisy.push(`${file} (${lines} line${lines === 1 ? '' : 's'})`);
    for (const a of result.testResults) {
      const title = a.ancestorTitles[0];
      if (a.status === 'pending' && title && title.includes(' — skipped: ')) this.skipped.add(title);
    }
  }

  onRunComplete(_contexts, results) {
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    const skipped = results.numPendingTests + results.numTodoTests;
    const out = [];
    for (const title of [...this.skipped].sort()) out.push(`○ ${title}`);
    if (this.noisy.length > 0) out.push(`console output from ${this.noisy.length} test file(s), expected none: ${this.noisy.sort().join(', ')}`);
    out.push(`tests: ${results.numPassedTests} passed, ${failed} failed, ${skipped} skipped`);
    // jest's own summary comes after the reporters' onRunComplete: write when the process ends.
    process.once('exit', () => process.stderr.write(`${out.join('\n')}\n`));
  }
}
module.exports = SummaryReporter;
