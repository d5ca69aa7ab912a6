/**
 * Prints one plain closing line after jest's own summary, e.g. `tests: 148 passed, 0 failed, 2 skipped`,
 * the form CI reads to count what ran.
 */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    const skipped = results.numPendingTests + results.numTodoTests;
    process.stderr.write(`tests: ${results.numPassedTests} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
module.exports = SummaryReporter;
