/**
 * Issue 6, workloads: pods on real droplets. The device receives its pods with its spec, runs each service as a
 * process, reports their states into the Pod's status, and takes start/stop/restart over its own connection.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ApiError } from '@outpost/shared';
import type { Device, Pod, ServiceStatus } from '@outpost/shared';
import { perAttempt } from './helpers/per-attempt.js';
import { waitForDevice } from './helpers/wait-for.js';
import { RemoteOpsWorld, offline, online } from './remote-ops-fixture.js';

const region = 'projects/apps/regions/eu';
const world = new RemoteOpsWorld();
// each test starts a droplet through tsx, which alone may wait a minute for it on a loaded machine
vi.setConfig({ testTimeout: 150_000 });
beforeAll(() => world.start(), 60_000);
afterAll(() => world.stop());

const SERVICES = [
  { name: 'api', command: ['sleep', '600'] },
  { name: 'worker', command: ['sh', '-c', 'while true; do sleep 1; done'] },
];

async function createPod(id: string, node: string): Promise<string> {
  const name = `${region}/pods/${id}`;
  await world.server.admin.create(region, 'pods', { name, spec: { node, services: SERVICES } });
  return name;
}

/** Follows the pod through a watch until `predicate` holds. */
async function waitForPod(name: string, predicate: (pod: Pod) => boolean, timeoutMs = 60_000): Promise<Pod> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  let last: Pod | undefined;
  try {
    for await (const message of world.server.admin.watch<{ change: Record<string, { pod?: Pod }> }>(
      `/v1/${name}:watch`,
      {},
      controller.signal,
    )) {
      const pod = Object.values(message.change)[0]?.pod;
      if (pod) last = pod;
      if (last && predicate(last)) return last;
    }
  } catch (err) {
    if (!controller.signal.aborted) throw err;
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  throw new Error(`timed out waiting for ${name}; last status: ${JSON.stringify(last?.status)}`);
}

const service = (pod: Pod, name: string): ServiceStatus | undefined =>
  pod.status?.serviceStatuses?.find((s) => s.name === name);
const phase = (value: string) => (pod: Pod) => pod.status?.phase === value;
/** A pod is RUNNING as soon as one service runs (Kubernetes' meaning); this waits for every one of them. */
const allRunning = (generation: number) => (pod: Pod) =>
  pod.status?.observedGeneration === generation &&
  pod.status.serviceStatuses?.length === pod.spec?.services?.length &&
  pod.status.serviceStatuses.every((s) => s.state === 'RUNNING');

describe('pods on a device', () => {
  it('runs the pods of its spec and reports them; start, stop and restart a whole pod and one service', async (context) => {
    const device = perAttempt(context, `${region}/devices/app-box`);
    await world.onlineDevice(device);
    const pod = await createPod(perAttempt(context, 'shop'), device);
    const running = await waitForPod(pod, allRunning(1));
    expect(running.status?.phase).toBe('RUNNING');
    expect(running.status?.serviceStatuses?.map((s) => [s.name, s.state, s.runtime])).toEqual([
      ['api', 'RUNNING', 'process'],
      ['worker', 'RUNNING', 'process'],
    ]);

    const stopOne = await world.cli(['applications', 'pods', 'stop', pod, 'worker']);
    expect(stopOne.code, stopOne.stderr).toBe(0);
    expect(stopOne.stdout).toMatch(/stopped service worker of .*: RUNNING/);
    let now = await world.server.admin.get<Pod>(pod);
    expect(service(now, 'worker')).toMatchObject({ state: 'TERMINATED', reason: 'Stopped' });
    expect(service(now, 'api')?.state).toBe('RUNNING');

    const startOne = await world.cli(['applications', 'pods', 'start', pod, 'worker']);
    expect(startOne.code, startOne.stderr).toBe(0);
    now = await world.server.admin.get<Pod>(pod);
    expect(service(now, 'worker')?.state).toBe('RUNNING');

    const apiPid = service(now, 'api')?.pid;
    const restartOne = await world.cli(['applications', 'pods', 'restart', pod, 'api', '-o', 'json']);
    expect(restartOne.code, restartOne.stderr).toBe(0);
    const restarted = JSON.parse(restartOne.stdout) as Pod;
    expect(service(restarted, 'api')).toMatchObject({ state: 'RUNNING', restartCount: 1 });
    expect(service(restarted, 'api')?.pid).not.toBe(apiPid);
    expect(service(restarted, 'worker')?.restartCount).toBe(0);

    const stopAll = await world.cli(['applications', 'stop', pod]);
    expect(stopAll.code, stopAll.stderr).toBe(0);
    expect((await world.server.admin.get<Pod>(pod)).status?.phase).toBe('STOPPED');
    const startAll = await world.cli(['applications', 'start', pod]);
    expect(startAll.code, startAll.stderr).toBe(0);
    expect((await world.server.admin.get<Pod>(pod)).status?.phase).toBe('RUNNING');

    const restartAll = await world.cli(['applications', 'restart', pod]);
    expect(restartAll.code, restartAll.stderr).toBe(0);
    expect(restartAll.stdout).toContain(`restarted ${pod}: RUNNING`);
    const after = await world.server.admin.get<Pod>(pod);
    expect(after.status?.serviceStatuses?.map((s) => s.restartCount)).toEqual([2, 1]);

    const unknown = await world.cli(['applications', 'pods', 'restart', pod, 'nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/NOT_FOUND: .*has no service "nope"/);
  });

  it('a stopped pod stays deployed and runs again after the device reboots (spec 000 rule 5)', async (context) => {
    const device = perAttempt(context, `${region}/devices/reboot-box`);
    await world.onlineDevice(device);
    const pod = await createPod(perAttempt(context, 'kiosk'), device);
    await waitForPod(pod, phase('RUNNING'));
    const stopped = await world.cli(['applications', 'stop', pod]);
    expect(stopped.code, stopped.stderr).toBe(0);
    await waitForPod(pod, phase('STOPPED'));
    const before = await waitForDevice(world.server.admin, device, (d) => d.status?.agent?.bootId !== undefined);

    const reboot = await world.cli(['devices', 'reboot', device, '--force']);
    expect(reboot.code, reboot.stderr).toBe(0);
    await waitForDevice(
      world.server.admin,
      device,
      (d: Device) => online(d) && d.status?.agent?.bootId !== before.status?.agent?.bootId,
      60_000,
    );
    const back = await waitForPod(pod, allRunning(1));
    expect(back.status?.serviceStatuses?.map((s) => s.state)).toEqual(['RUNNING', 'RUNNING']);
  });

  it('needs the device online: UNAVAILABLE with a clear message, and the pod shows UNKNOWN meanwhile', async (context) => {
    const device = perAttempt(context, `${region}/devices/gone-box`);
    const agent = await world.onlineDevice(device);
    const pod = await createPod(perAttempt(context, 'gone'), device);
    await waitForPod(pod, phase('RUNNING'));
    await agent.kill('SIGKILL');
    await waitForDevice(world.server.admin, device, offline, 30_000);
    await waitForPod(pod, phase('UNKNOWN'));
    const result = await world.cli(['applications', 'restart', pod]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`UNAVAILABLE: cannot restart ${pod}: device "${device}" is offline`);
  });

  it('follows pod changes: a new spec restarts the pod, a deleted pod stops', async (context) => {
    const device = perAttempt(context, `${region}/devices/change-box`);
    await world.onlineDevice(device);
    const pod = await createPod(perAttempt(context, 'change'), device);
    const first = await waitForPod(pod, allRunning(1));
    const oldPid = service(first, 'api')?.pid;
    await world.server.admin.update(
      { name: pod, spec: { node: device, services: [{ name: 'api', command: ['sleep', '601'] }] } },
      { updateMask: 'spec.services' },
    );
    const changed = await waitForPod(pod, allRunning(2));
    expect(changed.status?.phase).toBe('RUNNING');
    expect(changed.status?.serviceStatuses?.map((s) => s.name)).toEqual(['api']);
    expect(service(changed, 'api')?.pid).not.toBe(oldPid);
    const pid = service(changed, 'api')?.pid;
    await world.server.admin.delete(pod);
    await expect
      .poll(
        () => {
          try {
            process.kill(pid!, 0);
            return true;
          } catch {
            return false;
          }
        },
        { timeout: 10_000 },
      )
      .toBe(false);
  });

  it('refuses a pod whose node is not a device of its project and region', async () => {
    const refused = await world.server.admin
      .create(region, 'pods', {
        name: `${region}/pods/bad`,
        spec: { node: 'projects/other/regions/eu/devices/x1', services: SERVICES },
      })
      .catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ status: 'INVALID_ARGUMENT' });
  });
});
