/**
 * Prints one plain closing line after everything jest prints, e.g. `tests: 148 passed, 0 failed, 2 skipped`,
 * the form CI reads to count what ran.
 */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    const skipped = results.numPendingTests + results.numTodoTests;
    const line = `tests: ${results.numPassedTests} passed, ${failed} failed, ${skipped} skipped\n`;
    // jest's own summary comes after the reporters' onRunComplete: write when the process ends.
    process.once('exit', () => process.stderr.write(line));
  }
}
module.exports = SummaryReporter;
