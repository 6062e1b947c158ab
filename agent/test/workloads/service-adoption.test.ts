import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { DesiredPod, PodStatus, ServiceStatus } from '@outpost/shared';
import { capturedLogger } from '../helpers/captured-logger.js';
import { eventually } from '../helpers/eventually.js';
import { useTempDirs } from '../helpers/temp-dir.js';
import { parseProcStat } from '../../src/workloads/proc-stat.js';
import { processRuntime } from '../../src/workloads/process-runtime.js';
import { podDirName } from '../../src/workloads/pod-runner.js';
import { WorkloadManager } from '../../src/workloads/workload-manager.js';

const tempDir = useTempDirs();
const managers: WorkloadManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.stop()));
});

const POD = 'projects/p/regions/r/pods/web';
const TUNING = { restartInitialMs: 50, restartMaxMs: 200, stopGraceMs: 2000, stableAfterMs: 10_000 };
/** a service that runs until its pod folder holds a file `exit-<code>`, then exits with that code */
const UNTIL_TOLD = [
  'sh',
  '-c',
  'while :; do for f in exit-*; do [ -e "$f" ] && rm "$f" && exit "${f#exit-}"; done; sleep 0.05; done',
];

/** One agent's workload manager over `dataDir`; several in a row stand for the agent restarting. */
function agent(dataDir: string, bootId = 'boot-1'): WorkloadManager {
  const manager = new WorkloadManager({
    dataDir,
    runtimes: { process: processRuntime({ pollMs: 50, bootId: async () => bootId }), container: async () => undefined },
    logger: capturedLogger().logger,
    tuning: TUNING,
  });
  managers.push(manager);
  return manager;
}

const pod = (extra: Partial<DesiredPod['spec']> = {}, generation = 1, command = UNTIL_TOLD) => ({
  name: POD,
  generation,
  spec: { node: 'projects/p/regions/r/devices/d', services: [{ name: 'app', command }], ...extra },
});

const statusOf = (m: WorkloadManager): PodStatus => {
  const report = m.reports([POD])[0];
  if (report === undefined) throw new Error(`no report for ${POD}`);
  return report.status;
};
const app = (m: WorkloadManager): ServiceStatus => {
  const found = statusOf(m).serviceStatuses?.find((s) => s.name === 'app');
  if (found === undefined) throw new Error('no service app');
  return found;
};
const running = (pid: number | undefined): boolean => {
  if (pid === undefined) return false;
  try {
    const stat = parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    return stat !== undefined && stat.state !== 'Z';
  } catch {
    return false;
  }
};
const until = <T>(check: () => T): Promise<T> => eventually(check, 10_000);
const tell = (dataDir: string, code: number): Promise<void> =>
  writeFile(join(dataDir, 'workloads', podDirName(POD), `exit-${code}`), '');

describe('process services outlive the agent', () => {
  it('the next agent adopts a running service: same pid and start time, and stop stops it', async () => {
    const dataDir = await tempDir();
    const first = agent(dataDir);
    await first.setDesired([pod()]);
    const before = app(first);
    expect(before).toMatchObject({ state: 'RUNNING', pid: expect.any(Number) });
    await first.release();
    expect(running(before.pid)).toBe(true);

    const second = agent(dataDir);
    await second.setDesired([pod()]);
    expect(app(second)).toMatchObject({ state: 'RUNNING', pid: before.pid, startTime: before.startTime });

    await second.control({ pod: POD, action: 'STOP' });
    expect(app(second)).toMatchObject({ state: 'TERMINATED', reason: 'Stopped' });
    await until(() => expect(running(before.pid)).toBe(false));
  });

  it('an adopted service that exits is restarted by its policy, its exit code known', async () => {
    const dataDir = await tempDir();
    const first = agent(dataDir);
    await first.setDesired([pod({ restartPolicy: 'ON_FAILURE' })]);
    const pid = app(first).pid;
    await first.release();

    const second = agent(dataDir);
    const seen: ServiceStatus[] = [];
    second.onChange(() => seen.push(app(second)));
    await second.setDesired([pod({ restartPolicy: 'ON_FAILURE' })]);
    expect(app(second).pid).toBe(pid);

    await tell(dataDir, 4);
    await until(() => expect(app(second)).toMatchObject({ state: 'RUNNING', restartCount: 1 }));
    expect(seen).toContainEqual(expect.objectContaining({ state: 'RESTARTING', exitCode: 4 }));
    expect(app(second).pid).not.toBe(pid);
    expect(statusOf(second).failureCount).toBe(1);

    // a clean exit under ON_FAILURE ends it for good
    await tell(dataDir, 0);
    await until(() => expect(app(second)).toMatchObject({ state: 'TERMINATED', exitCode: 0, reason: 'Completed' }));
  });

  it('a service that ended while no agent ran is handled by policy when the next one starts', async () => {
    const dataDir = await tempDir();
    const first = agent(dataDir);
    await first.setDesired([pod({ restartPolicy: 'NEVER' })]);
    const pid = app(first).pid;
    await first.release();
    await tell(dataDir, 7);
    await until(() => expect(running(pid)).toBe(false));

    const second = agent(dataDir);
    await second.setDesired([pod({ restartPolicy: 'NEVER' })]);
    await until(() => expect(app(second)).toMatchObject({ state: 'TERMINATED', exitCode: 7, reason: 'Error' }));
    expect(statusOf(second).phase).toBe('FAILED');
  });

  it('a service killed by a signal reports the signal', async () => {
    const dataDir = await tempDir();
    const first = agent(dataDir);
    await first.setDesired([pod({ restartPolicy: 'NEVER' }, 1, ['sleep', '60'])]);
    const pid = app(first).pid;
    await first.release();

    const second = agent(dataDir);
    await second.setDesired([pod({ restartPolicy: 'NEVER' }, 1, ['sleep', '60'])]);
    process.kill(pid ?? 0, 'SIGKILL');
    await until(() => expect(app(second)).toMatchObject({ state: 'TERMINATED', signal: 'SIGKILL' }));
  });

  it('is not adopted when its pod changed or the device rebooted meanwhile: it is replaced', async () => {
    const dataDir = await tempDir();
    const first = agent(dataDir);
    await first.setDesired([pod()]);
    const old = app(first).pid;
    await first.release();

    const changed = agent(dataDir);
    await changed.setDesired([pod({}, 2, ['sleep', '60'])]);
    const replacement = app(changed).pid;
    expect(replacement).not.toBe(old);
    await until(() => expect(running(old)).toBe(false));
    await changed.release();

    // after a reboot a recorded pid names some other process (or none): it is never signalled or adopted
    const rebooted = agent(dataDir, 'boot-2');
    await rebooted.setDesired([pod({}, 2, ['sleep', '60'])]);
    expect(app(rebooted).pid).not.toBe(replacement);
    expect(running(replacement)).toBe(true);
    process.kill(replacement ?? 0, 'SIGKILL'); // the wrapper then ends too
  });
});

describe('services of pods removed while no agent ran', () => {
  it('are ended by the next agent once its pods run, and the others are kept', async () => {
    const dataDir = await tempDir();
    const other = { ...pod({}, 1, ['sleep', '60']), name: 'projects/p/regions/r/pods/other' };
    const first = agent(dataDir);
    await first.setDesired([pod(), other]);
    const gone = app(first).pid;
    const kept = first.reports([other.name])[0]?.status.serviceStatuses?.[0]?.pid;
    await first.release();

    const second = agent(dataDir);
    await second.setDesired([other]);
    expect(running(gone)).toBe(false);
    expect(second.reports([other.name])[0]?.status.serviceStatuses?.[0]).toMatchObject({ pid: kept });
    expect(running(kept)).toBe(true);
  });
});

describe('/proc/<pid>/stat', () => {
  it('is read from the last parenthesis, whatever the command name holds', () => {
    const fields = Array.from({ length: 40 }, (_, i) => String(i + 4));
    expect(parseProcStat(`42 (a) b (c)) S 1 42 ${fields.slice(3).join(' ')}`)).toEqual({
      pid: 42,
      state: 'S',
      ppid: 1,
      pgrp: 42,
      startTime: '23',
    });
    expect(parseProcStat('garbage')).toBeUndefined();
  });
});
