// One plain closing line, 'tests: N passed, N failed, N skipped', that CI and
// people can read without knowing Jest's own summary format. Written at exit,
// so it comes after everything Jest prints.
const { writeSync } = require('node:fs');

class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const line = `tests: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${skipped} skipped\n`;
    process.once('exit', () => writeSync(1, line));
  }
}
module.exports = SummaryReporter;
