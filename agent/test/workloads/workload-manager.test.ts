import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { DesiredPod, EnvVar, PodStatus, ServiceStatus } from '@outpost/shared';
import { capturedLogger } from '../helpers/captured-logger.js';
import { eventually } from '../helpers/eventually.js';
import { useTempDirs } from '../helpers/temp-dir.js';
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

async function manager(deviceEnv?: () => EnvVar[]): Promise<{ workloads: WorkloadManager; dataDir: string }> {
  const dataDir = await tempDir();
  const workloads = new WorkloadManager({
    dataDir,
    runtimes: { process: processRuntime(), container: async () => undefined },
    logger: capturedLogger().logger,
    tuning: TUNING,
    ...(deviceEnv === undefined ? {} : { deviceEnv }),
  });
  managers.push(workloads);
  return { workloads, dataDir };
}

const pod = (services: DesiredPod['spec']['services'], extra: Partial<DesiredPod['spec']> = {}, generation = 1) => ({
  name: POD,
  generation,
  spec: { node: 'projects/p/regions/r/devices/d', services, ...extra },
});

const statusOf = (m: WorkloadManager, name = POD): PodStatus => {
  const report = m.reports([name])[0];
  if (report === undefined) throw new Error(`no report for ${name}`);
  return report.status;
};
const serviceOf = (m: WorkloadManager, service: string): ServiceStatus => {
  const found = statusOf(m).serviceStatuses?.find((s) => s.name === service);
  if (found === undefined) throw new Error(`no service ${service}`);
  return found;
};
const alive = (pid: number | undefined): boolean => {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const until = <T>(check: () => T): Promise<T> => eventually(check, 10_000);

describe('the workload manager (real processes)', () => {
  it('runs a pod, logs its output under data/workloads, and stops, starts and restarts a service or the pod', async () => {
    const { workloads, dataDir } = await manager();
    const changes: string[] = [];
    workloads.onChange((name) => changes.push(name));
    await workloads.setDesired([
      pod([
        {
          name: 'web',
          command: ['sh', '-c', 'echo "hello $GREETING from $OUTPOST_SERVICE"; exec sleep 60'],
          env: [{ name: 'GREETING', value: 'hi' }],
        },
        { name: 'worker', command: ['sleep', '60'] },
      ]),
    ]);
    expect(statusOf(workloads)).toMatchObject({ phase: 'RUNNING', observedGeneration: 1 });
    expect(changes).toContain(POD);
    const log = join(dataDir, 'workloads', podDirName(POD), 'web.log');
    await until(() => expect(readFileSync(log, 'utf8')).toContain('hello hi from web'));

    const workerPid = serviceOf(workloads, 'worker').pid;
    await workloads.control({ pod: POD, service: 'worker', action: 'STOP' });
    expect(serviceOf(workloads, 'worker')).toMatchObject({ state: 'TERMINATED', reason: 'Stopped' });
    expect(alive(workerPid)).toBe(false);
    expect(statusOf(workloads).phase).toBe('RUNNING');

    await workloads.control({ pod: POD, action: 'STOP' });
    expect(statusOf(workloads).phase).toBe('STOPPED');

    await workloads.control({ pod: POD, action: 'START' });
    expect(statusOf(workloads).phase).toBe('RUNNING');
    const webPid = serviceOf(workloads, 'web').pid;

    const after = await workloads.control({ pod: POD, service: 'web', action: 'RESTART' });
    const web = after.serviceStatuses?.find((s) => s.name === 'web');
    expect(web).toMatchObject({ state: 'RUNNING', restartCount: 1 });
    expect(web?.pid).not.toBe(webPid);
    expect(alive(webPid)).toBe(false);
  });

  it("gives pods the device's proxy environment as they start; a service's own env wins", async () => {
    let proxy = 'http://proxy.lan:3128';
    const { workloads, dataDir } = await manager(() => [
      { name: 'HTTPS_PROXY', value: proxy },
      { name: 'https_proxy', value: proxy },
      { name: 'NO_PROXY', value: 'localhost' },
    ]);
    const echo = 'echo "$HTTPS_PROXY $https_proxy $NO_PROXY"; exec sleep 60';
    await workloads.setDesired([
      pod([
        { name: 'web', command: ['sh', '-c', echo] },
        { name: 'own', command: ['sh', '-c', echo], env: [{ name: 'NO_PROXY', value: '*' }] },
      ]),
    ]);
    const log = (service: string): string =>
      readFileSync(join(dataDir, 'workloads', podDirName(POD), `${service}.log`), 'utf8');
    await until(() => expect(log('web')).toContain('http://proxy.lan:3128 http://proxy.lan:3128 localhost'));
    await until(() => expect(log('own')).toContain('http://proxy.lan:3128 http://proxy.lan:3128 *'));

    // a pod started after the proxy changed gets the new one
    proxy = 'http://other.lan:8080';
    await workloads.setDesired([pod([{ name: 'web', command: ['sh', '-c', echo] }], {}, 2)]);
    await until(() => expect(log('web')).toContain('http://other.lan:8080 http://other.lan:8080 localhost'));
  });

  it('stopping a service ends everything it started (its process group)', async () => {
    const { workloads, dataDir } = await manager();
    await workloads.setDesired([
      pod([{ name: 'tree', command: ['sh', '-c', 'sleep 60 & echo $! > child.pid; wait'] }]),
    ]);
    const childPidFile = join(dataDir, 'workloads', podDirName(POD), 'child.pid');
    // the shell creates the file before it writes the pid: an empty read is waited past (Number('') is 0)
    const child = await until(() => {
      const pid = Number(readFileSync(childPidFile, 'utf8'));
      expect(pid).toBeGreaterThan(0);
      return pid;
    });
    expect(alive(child)).toBe(true);
    await workloads.control({ pod: POD, action: 'STOP' });
    await until(() => expect(alive(child)).toBe(false));
  });

  it('restarts by policy: ALWAYS and ON_FAILURE restart a failing service, NEVER lets the pod fail', async () => {
    const { workloads } = await manager();
    await workloads.setDesired([
      pod([{ name: 'crash', command: ['sh', '-c', 'exit 3'] }], { restartPolicy: 'ON_FAILURE' }),
    ]);
    await until(() => expect(serviceOf(workloads, 'crash').restartCount).toBeGreaterThanOrEqual(2));
    expect(statusOf(workloads).failureCount).toBeGreaterThanOrEqual(2);

    await workloads.setDesired([
      pod([{ name: 'crash', command: ['sh', '-c', 'exit 3'] }], { restartPolicy: 'NEVER' }, 2),
    ]);
    await until(() => expect(statusOf(workloads).phase).toBe('FAILED'));
    expect(serviceOf(workloads, 'crash')).toMatchObject({ state: 'TERMINATED', exitCode: 3, reason: 'Error' });

    await workloads.setDesired([pod([{ name: 'once', command: ['true'] }], { restartPolicy: 'ON_FAILURE' }, 3)]);
    await until(() => expect(statusOf(workloads).phase).toBe('SUCCEEDED'));
  });

  it('a command that cannot start is reported, and a pod changed or removed is stopped', async () => {
    const { workloads } = await manager();
    await workloads.setDesired([pod([{ name: 'bad', command: ['/nonexistent/binary'], restartPolicy: 'NEVER' }])]);
    await until(() => expect(serviceOf(workloads, 'bad')).toMatchObject({ state: 'TERMINATED', reason: 'StartError' }));
    expect(statusOf(workloads).phase).toBe('FAILED');

    await workloads.setDesired([pod([{ name: 'app', command: ['sleep', '60'] }], {}, 2)]);
    const pid = serviceOf(workloads, 'app').pid;
    expect(statusOf(workloads).observedGeneration).toBe(2);
    await workloads.setDesired([]);
    expect(workloads.reports()).toEqual([]);
    await until(() => expect(alive(pid)).toBe(false));
  });

  it('refuses commands for pods and services it does not run, and reports pods it cannot run', async () => {
    const { workloads } = await manager();
    await workloads.setDesired([
      pod([{ name: 'app', command: ['sleep', '60'] }]),
      { name: 'projects/p/regions/r/pods/broken', generation: 4, spec: { services: [{ name: 'x' }] } },
    ]);
    await expect(workloads.control({ pod: 'projects/p/regions/r/pods/nope', action: 'START' })).rejects.toMatchObject({
      status: 'NOT_FOUND',
    });
    await expect(workloads.control({ pod: POD, service: 'nope', action: 'STOP' })).rejects.toThrow(
      /has no service "nope"/,
    );
    expect(statusOf(workloads, 'projects/p/regions/r/pods/broken')).toMatchObject({
      phase: 'FAILED',
      observedGeneration: 4,
      error: expect.stringMatching(/command or an image/),
    });
    await expect(workloads.control({ pod: 'projects/p/regions/r/pods/broken', action: 'START' })).rejects.toThrow(
      /cannot run/,
    );
  });

  it('a service with an image and no container runtime makes the pod POD_CREATE_FAILED', async () => {
    const { workloads } = await manager();
    await workloads.setDesired([pod([{ name: 'box', image: 'busybox' }])]);
    expect(statusOf(workloads).phase).toBe('POD_CREATE_FAILED');
    expect(serviceOf(workloads, 'box')).toMatchObject({ state: 'WAITING', reason: 'RuntimeUnavailable' });
  });
});
