import type { Reporter, TestModule } from 'vitest/node';

/** At most this much of each error of a failed attempt is shown: enough to tell the cause, not a whole diff. */
const ERROR_CHARS = 600;

/**
 * Lists, after a run, the tests that failed and then passed on their retry (CI retries a failed test once), each
 * with the errors of its failed attempt: a retry keeps one slow moment on a loaded machine from failing CI, and
 * this list keeps the flake visible, with what it takes to fix it.
 */
export default class FlakyTestsReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const flaky: string[] = [];
    for (const testModule of testModules) {
      for (const test of testModule.children.allTests()) {
        const diagnostic = test.diagnostic();
        if (!diagnostic?.flaky) continue;
        flaky.push(`  ${testModule.relativeModuleId} > ${test.fullName} (passed after ${diagnostic.retryCount} retry)`);
        for (const error of test.result().errors ?? []) {
          const text = `${error.name ?? 'Error'}: ${error.message}`.replace(/\s+/g, ' ');
          flaky.push(`    ${text.length > ERROR_CHARS ? `${text.slice(0, ERROR_CHARS)}…` : text}`);
        }
      }
    }
    if (flaky.length === 0) return;
    const count = flaky.filter((line) => !line.startsWith('    ')).length;
    process.stdout.write(`\nFlaky: ${count} test(s) failed, then passed when retried:\n${flaky.join('\n')}\n\n`);
  }
}
