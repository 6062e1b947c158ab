/**
 * Spec 000 "States and transitions" and "Other rules", one test each, with a real control plane and real
 * droplet processes on the simulated (file) boot backend; every step is observed through a watch.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../../control-plane/test/helpers/test-server.js';
import type { Snapshot } from './helpers/device-timeline.js';
import { SimulatedOtaWorld } from './helpers/simulated-ota.js';
import type { SimulatedDevice } from './helpers/simulated-ota.js';

let world: SimulatedOtaWorld;
let server: TestServer;

beforeAll(async () => {
  world = await SimulatedOtaWorld.start('ota');
  server = world.server;
  await world.publish('1.1.0', { megabytes: 64 }); // large enough that the download is seen as its own step
  await world.publish('1.2.0', { megabytes: 3 });
  await world.publish('1.3.0', { marker: 'OUTPOST-TEST-PANIC', megabytes: 3 });
});
afterEach(async () => world.stopDevices());
afterAll(async () => world.dispose());

/** A provisioned device holding data that must survive its upgrades. */
async function simulatedDevice(id: string, backend = 'file'): Promise<SimulatedDevice> {
  const device = await world.device(id, backend);
  mkdirSync(join(device.root, 'data'), { recursive: true });
  writeFileSync(join(device.root, 'data', 'payload.txt'), 'kept across upgrades');
  return device;
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
    // from the write on: a status the device wrote before it (Converged on 1.0.0) may reach the watch after the mark
    const fromWrite = d.timeline.states.findIndex((state, i) => i >= mark && state.desired === '1.1.0');
    const path = d.timeline.reasons(fromWrite);
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
    await world.agents.pop()!.stop('SIGTERM');
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
