import type { Reporter, TestModule } from 'vitest/node';

/**
 * Lists, after a run, the tests that failed and then passed on their retry (CI retries a failed test once):
 * a retry keeps one slow moment on a loaded machine from failing CI, and this list keeps the flake visible.
 */
export default class FlakyTestsReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const flaky: string[] = [];
    for (const testModule of testModules) {
      for (const test of testModule.children.allTests()) {
        const diagnostic = test.diagnostic();
        if (diagnostic?.flaky) {
          flaky.push(
            `  ${testModule.relativeModuleId} > ${test.fullName} (passed after ${diagnostic.retryCount} retry)`,
          );
        }
      }
    }
    if (flaky.length === 0) return;
    process.stdout.write(`\nFlaky: ${flaky.length} test(s) failed, then passed when retried:\n${flaky.join('\n')}\n\n`);
  }
}
