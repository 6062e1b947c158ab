/**
 * Spec 000 "States and transitions" and "Other rules", one test each, with a real control plane and real
 * droplet processes on the simulated (file) boot backend; every step is observed through a watch.
 */
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_ADMIN_KEY } from '../../control-plane/test/helpers/test-server.js';
import type { TestServer } from '../../control-plane/test/helpers/test-server.js';
import { DeviceTimeline } from './helpers/device-timeline.js';
import type { Snapshot } from './helpers/device-timeline.js';
import { DROPLET, runCli, startProcess } from './helpers/processes.js';
import type { RunningProcess } from './helpers/processes.js';

const parent = 'projects/ota/regions/eu';
let server: TestServer;
let work: string;
const agents: RunningProcess[] = [];
const timelines: DeviceTimeline[] = [];
const cliEnv = (): Record<string, string> => ({ OUTPOST_SERVER: server.url, OUTPOST_API_KEY: TEST_ADMIN_KEY });

beforeAll(async () => {
  server = await startTestServer({}, { heartbeatSeconds: 1 });
  work = mkdtempSync(join(tmpdir(), 'outpost-ota-'));
  const keygen = await runCli(['os', 'keygen', join(work, 'signing')], cliEnv());
  expect(keygen.code, keygen.stderr).toBe(0);
  await publish('1.1.0', '', 64); // large enough that the download is seen as its own step
  await publish('1.2.0');
  await publish('1.3.0', 'OUTPOST-TEST-PANIC');
});
afterEach(async () => {
  timelines.splice(0).forEach((t) => t.close());
  await Promise.all(agents.splice(0).map((a) => a.stop('SIGKILL')));
});
afterAll(async () => {
  await server.dispose();
  await rm(work, { recursive: true, force: true });
});

async function publish(version: string, marker = '', megabytes = 3): Promise<void> {
  const image = join(work, `image-${version}.img`);
  writeFileSync(image, Buffer.concat([Buffer.from(marker), randomBytes(megabytes * 1024 * 1024)]));
  const result = await runCli(
    [
      'os',
      'publish',
      '--device-type',
      'simulated',
      '--version',
      version,
      '--image',
      image,
      '--key',
      join(work, 'signing.key'),
    ],
    cliEnv(),
  );
  expect(result.code, result.stderr).toBe(0);
}

interface SimulatedDevice {
  name: string;
  root: string;
  timeline: DeviceTimeline;
  start(extra?: string[], env?: Record<string, string>): RunningProcess;
}

async function simulatedDevice(id: string, backend = 'file'): Promise<SimulatedDevice> {
  const name = `${parent}/devices/${id}`;
  const root = join(work, id);
  const result = await runCli(
    [
      'devices',
      'provision',
      name,
      '--device-root',
      root,
      '--boot-backend',
      backend,
      '--factory-version',
      '1.0.0',
      '--device-type',
      'simulated',
    ],
    cliEnv(),
  );
  expect(result.code, result.stderr).toBe(0);
  mkdirSync(join(root, 'config', 'trust'), { recursive: true });
  copyFileSync(join(work, 'signing.pub'), join(root, 'config', 'trust', 'signing.pub'));
  mkdirSync(join(root, 'data'), { recursive: true });
  writeFileSync(join(root, 'data', 'payload.txt'), 'kept across upgrades');
  const timeline = new DeviceTimeline(server.admin, name);
  timelines.push(timeline);
  return {
    name,
    root,
    timeline,
    start: (extra = [], env = {}) => {
      const agent = startProcess(
        DROPLET,
        ['--device-root', root, '--metrics-interval', '30', '--log-level', 'warn', ...extra],
        env,
      );
      agents.push(agent);
      return agent;
    },
  };
}

const converged = (version: string) => (s: Snapshot) =>
  s.connection === 'CONNECTED' &&
  s.running === version &&
  s.osReady?.status === 'True' &&
  s.osReady.reason === 'Converged';

const setVersion = (name: string, osVersion: string) =>
  server.admin.update({ name, spec: { osVersion } }, { updateMask: 'spec.osVersion' });

describe('spec 000 States and transitions', () => {
  it('Converged → Pending → Preparing → Switching and rebooting → Converged, keeping data, retaining the old slot', async () => {
    const d = await simulatedDevice('row-upgrade');
    d.start();
    await d.timeline.until(converged('1.0.0'));
    const mark = d.timeline.mark();
    const downloadsBefore = server.artifactDownloads();

    const written = await setVersion(d.name, '1.1.0');
    // the write itself: fields disagree, OSReady=False/Pending, nothing else happens on the record
    expect((written as { status: Snapshot['device']['status'] }).status?.conditions).toContainEqual(
      expect.objectContaining({ type: 'OSReady', status: 'False', reason: 'Pending' }),
    );
    const done = await d.timeline.until(converged('1.1.0'), 90_000, mark);
    const path = d.timeline.reasons(mark);
    expect(path[0]).toBe('Pending');
    expect(path).toEqual(expect.arrayContaining(['Rebooting']));
    expect(path.indexOf('Rebooting')).toBeLessThan(path.lastIndexOf('Converged'));
    expect(
      path.some((r) => r === 'Downloading' || r === 'Installing'),
      path.join(' > '),
    ).toBe(true);
    // shown Offline while it restarts
    expect(d.timeline.states.slice(mark).some((s) => s.connection === 'DISCONNECTED')).toBe(true);
    // a version is reported only from the running, committed slot
    const reported = d.timeline.states
      .slice(mark)
      .filter((s) => s.running !== undefined)
      .map((s) => s.running);
    expect([...new Set(reported)]).toEqual(['1.0.0', '1.1.0']);
    expect(done.runningSlot).toBe('B');
    expect(done.device.status?.osUpdate?.slots?.['A']?.version).toBe('1.0.0');
    expect(server.artifactDownloads()).toBeGreaterThan(downloadsBefore);
    expect(readFileSync(join(d.root, 'data', 'payload.txt'), 'utf8')).toBe('kept across upgrades');
    expect(existsSync(join(d.root, 'config', 'identity', 'private-key.pem'))).toBe(true);
  }, 120_000);

  it('Pending, then written back to the previous version → Converged on it with no download', async () => {
    const d = await simulatedDevice('row-writeback');
    const agent = d.start();
    await d.timeline.until(converged('1.0.0'));
    const stopped = d.timeline.mark();
    await agent.stop('SIGTERM'); // the device will act on the stored version at its next check-in
    await d.timeline.until((s) => s.connection === 'DISCONNECTED', 10_000, stopped);
    await setVersion(d.name, '1.1.0');
    await d.timeline.until((s) => s.osReady?.reason === 'Pending');
    await setVersion(d.name, '1.0.0');
    const downloadsBefore = server.artifactDownloads();
    const mark = d.timeline.mark();
    d.start();
    const done = await d.timeline.until((s) => converged('1.0.0')(s) && s.desired === '1.0.0', 60_000, mark);
    expect(done.runningSlot).toBe('A');
    expect(server.artifactDownloads()).toBe(downloadsBefore);
    expect(d.timeline.reasons(mark)).not.toContain('Downloading');
  }, 120_000);

  it('Offline at the time of the write → reconnects → Pending, then as above, skipping versions', async () => {
    const d = await simulatedDevice('row-offline');
    const agent = d.start();
    await d.timeline.until(converged('1.0.0'));
    const stopped = d.timeline.mark();
    await agent.stop('SIGTERM');
    await d.timeline.until((s) => s.connection === 'DISCONNECTED', 10_000, stopped);
    await setVersion(d.name, '1.1.0');
    await setVersion(d.name, '1.2.0'); // written twice while offline: only the last counts
    const mark = d.timeline.mark();
    d.start();
    const done = await d.timeline.until(converged('1.2.0'), 90_000, mark);
    expect(done.running).toBe('1.2.0');
    const seen = d.timeline.states.slice(mark).map((s) => s.running);
    expect(seen).not.toContain('1.1.0');
  }, 120_000);

  it('Switching and rebooting, the device fails to start the new version → running on the retained version (RolledBack), no loop', async () => {
    const d = await simulatedDevice('row-fallback');
    d.start();
    await d.timeline.until(converged('1.0.0'));
    const mark = d.timeline.mark();
    await setVersion(d.name, '1.3.0'); // its image never boots
    const rolledBack = await d.timeline.until(
      (s) => s.connection === 'CONNECTED' && s.osReady?.reason === 'RolledBack',
      90_000,
      mark,
    );
    expect(rolledBack.osReady?.status).toBe('False');
    expect(rolledBack.running).toBe('1.0.0');
    expect(rolledBack.runningSlot).toBe('A');
    expect(rolledBack.device.status?.osUpdate?.lastFailed).toBe('B');
    // it does not retry the failed version: the next state change it makes is none (two heartbeats of quiet)
    const downloads = server.artifactDownloads();
    const after = d.timeline.mark();
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(d.timeline.reasons(after).filter((r) => r !== 'RolledBack')).toEqual([]);
    expect(server.artifactDownloads()).toBe(downloads);
    // a new desired version is acted on again
    await setVersion(d.name, '1.1.0');
    await d.timeline.until(converged('1.1.0'), 90_000, after);
  }, 200_000);
});

describe('spec 000 Other rules', () => {
  it('rule 1: a rollback is an upgrade to an earlier version; the retained one switches slots without a download', async () => {
    const d = await simulatedDevice('rule-rollback');
    d.start();
    await d.timeline.until(converged('1.0.0'));
    await setVersion(d.name, '1.1.0');
    await d.timeline.until(converged('1.1.0'), 90_000);
    const downloads = server.artifactDownloads();
    const mark = d.timeline.mark();
    await setVersion(d.name, '1.0.0');
    const back = await d.timeline.until(converged('1.0.0'), 90_000, mark);
    expect(back.runningSlot).toBe('A');
    expect(server.artifactDownloads()).toBe(downloads);
    expect(d.timeline.reasons(mark)).toContain('Rebooting');
  }, 200_000);

  it('rule 3: an agent on a customer Linux reports Unsupported, and writing another version is refused', async () => {
    const d = await simulatedDevice('rule-own-linux', 'none');
    d.start();
    const s = await d.timeline.until((x) => x.connection === 'CONNECTED' && x.osReady?.reason === 'Unsupported');
    expect(s.osReady?.status).toBe('True');
    await expect(setVersion(d.name, '1.1.0')).rejects.toMatchObject({ status: 'FAILED_PRECONDITION' });
  }, 60_000);

  it('rule 4: a power cut in the middle of the download → the device boots, resumes and converges', async () => {
    const d = await simulatedDevice('rule-power-cut');
    d.start();
    await d.timeline.until(converged('1.0.0'));
    await agents.pop()!.stop('SIGTERM');
    await setVersion(d.name, '1.1.0');
    const cut = d.start([], { OUTPOST_TEST_POWER_CUT_AT: 'download-checkpoint' });
    await cut.exited;
    expect(existsSync(join(d.root, 'sim-run'))).toBe(false); // volatile state gone: the next start is a boot
    const mark = d.timeline.mark();
    d.start();
    const done = await d.timeline.until(converged('1.1.0'), 90_000, mark);
    expect(done.runningSlot).toBe('B');
  }, 200_000);

  it('a trial boot that never commits falls back to the retained slot and reports RolledBack', async () => {
    const d = await simulatedDevice('rule-no-commit');
    d.start(['--commit-timeout', '3'], { OUTPOST_TEST_NEVER_COMMIT: '1' });
    await d.timeline.until(converged('1.0.0'));
    const mark = d.timeline.mark();
    await setVersion(d.name, '1.2.0');
    const s = await d.timeline.until(
      (x) => x.connection === 'CONNECTED' && x.osReady?.reason === 'RolledBack',
      90_000,
      mark,
    );
    expect(s.running).toBe('1.0.0');
    expect(d.timeline.reasons(mark)).toContain('Verifying');
  }, 200_000);
});
