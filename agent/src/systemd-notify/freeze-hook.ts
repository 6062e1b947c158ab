import { writeSync } from 'node:fs';

/**
 * Test hook for the systemd watchdog: with OUTPOST_TEST_FREEZE_ON_SIGUSR2=1, SIGUSR2 blocks the agent's event loop
 * for good, the way a hung synchronous call would, so a test sees systemd restart a frozen agent.
 */
export function installFreezeHook(env: NodeJS.ProcessEnv): void {
  if (env.OUTPOST_TEST_FREEZE_ON_SIGUSR2 !== '1') return;
  process.on('SIGUSR2', () => {
    // written at once: nothing asynchronous runs after this
    writeSync(2, 'droplet: OUTPOST_TEST_FREEZE_ON_SIGUSR2: freezing the event loop\n');
    // sleeps on a futex nobody wakes: blocked, without burning a core
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
  });
}
