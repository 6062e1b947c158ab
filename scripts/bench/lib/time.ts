export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** `pending`, or a rejection naming `what` once `ms` have passed. */
export async function withTimeout<T>(pending: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  try {
    return await Promise.race([pending, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Ends the process with `code` if it is still running after `ms` (a benchmark must be bounded in time even when
 * something hangs). The timer does not keep the process alive.
 */
export function exitAfter(ms: number, code: number, message: string): void {
  setTimeout(() => {
    process.stderr.write(message + '\n');
    process.exit(code);
  }, ms).unref();
}

/**
 * Milliseconds on the system's monotonic clock (CLOCK_MONOTONIC on Linux): comparable between processes on the
 * same machine, unlike performance.now(), whose origin is each process's (or thread's) start.
 */
export const monotonicMs = (): number => Number(process.hrtime.bigint()) / 1e6;

/** Polls `test` every 100 ms until it answers true; a throw counts as "not yet". */
export async function until(test: () => Promise<boolean>): Promise<void> {
  for (;;) {
    try {
      if (await test()) return;
    } catch {
      // not up yet
    }
    await sleep(100);
  }
}
