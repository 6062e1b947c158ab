import type { TestContext } from 'vitest';

/**
 * `name` on a test's first attempt, `name-retryN` on its Nth retry. Under CI a failed test runs once more in the same
 * file, against the same server: what its first attempt created (a device, a pod) must not fail the retry with
 * ALREADY_EXISTS, nor the first attempt's droplet answer for the retry's device.
 */
export function perAttempt({ task }: Pick<TestContext, 'task'>, name: string): string {
  const retry = task.result?.retryCount ?? 0;
  return retry === 0 ? name : `${name}-retry${retry}`;
}
