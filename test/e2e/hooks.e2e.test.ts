import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Device, HookName, HookRun } from '@outpost/shared';
import { isOnline } from './harness/e2e-device.js';
import type { Boot } from './harness/qemu-vm.js';
import { useScenario } from './harness/scenario.js';
import { agentLogRecords } from './harness/serial-log.js';

/** Where the hooks of this scenario leave their markers, inside the data partition. */
const MARKERS = '/data/e2e-hook-markers';

/**
 * A hook that appends `<hook> t=<unix time, ns> boot=<kernel boot id>` to the markers file. after-droplet also
 * records when systemd first started droplet.service in this boot (`droplet-started`: unix time, µs, of the journal's
 * `Starting`/`Started droplet.service` line), so every time compared below comes from one clock: the guest's.
 */
function markerHook(hook: HookName): string {
  const dropletStarted =
    "journalctl -b -u droplet.service -o short-unix --no-pager | grep -m1 -E 'Start(ing|ed) droplet\\.service' | cut -d' ' -f1";
  return [
    '#!/bin/sh',
    `# e2e hooks scenario: when ${hook} ran (the guest's clock) and in which boot`,
    `line="${hook} t=$(date +%s.%N) boot=$(cat /proc/sys/kernel/random/boot_id)"`,
    ...(hook === 'after-droplet' ? [`line="$line droplet-started=$(${dropletStarted})"`] : []),
    `echo "$line" >> /outpost${MARKERS}`,
    'sync',
    '',
  ].join('\n');
}

interface Marker {
  hook: string;
  /** unix time in ms (fractional), the guest's clock */
  at: number;
  boot: string;
  fields: Record<string, string>;
}

function parseMarkers(text: string | undefined): Marker[] {
  return (text ?? '')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [hook = '', ...pairs] = line.trim().split(' ');
      const fields = Object.fromEntries(
        pairs.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
      );
      return { hook, at: Number(fields['t']) * 1000, boot: fields['boot'] ?? '', fields };
    });
}

/** The run of `hook` in `status.hooks` recorded in boot `bootId`. */
const hookRunOf = (device: Device | undefined, hook: HookName, bootId: string | undefined): HookRun | undefined =>
  device?.status?.hooks?.find((run) => run.hook === hook && run.bootId === bootId);

const reportedAll = (device: Device, runs: readonly [HookName, string | undefined][]): boolean =>
  runs.every(([hook, bootId]) => hookRunOf(device, hook, bootId) !== undefined);

/** droplet's log records with message `msg` on a boot's serial console; times in ms, the guest's clock. */
const agentLog = (boot: Boot | undefined, msg: string): number[] =>
  agentLogRecords(boot === undefined ? '' : readFileSync(boot.serialLog, 'utf8'))
    .filter((record) => record.msg === msg)
    .map((record) => record.time);

const endOf = (run: HookRun | undefined): number => Date.parse(run?.startTime ?? '') + (run?.durationMs ?? NaN);

/**
 * Issue 7 on a real guest under systemd, in two boots: on-boot runs (its unit) before droplet.service starts,
 * after-droplet once per boot once the agent is up (a dropped and re-made connection does not run it again),
 * and on-shutdown on an agent-initiated reboot (`outpost devices reboot --force`), before the next boot's on-boot.
 * Every hook appends a marker with the guest's time to the data partition; the scenario reads them from the disk
 * at the end and compares them with the agent's log lines (same clock) and with what `status.hooks` reported.
 */
describe('hooks under systemd', () => {
  const scenario = useScenario();

  it('runs on-boot before droplet, after-droplet once per boot once the agent is up, on-shutdown on a reboot', async () => {
    const device = await scenario.device('hooks', {
      maxBoots: 2,
      hookScripts: {
        'on-boot': markerHook('on-boot'),
        'after-droplet': markerHook('after-droplet'),
        'on-shutdown': markerHook('on-shutdown'),
      },
    });

    // boot 1: on-boot (its unit) and after-droplet (the agent, once connected) run and are reported
    const online1 = await device.powerOn();
    const boot1Id = online1.status?.agent?.bootId;
    const reported1 = await device.waitFor('on-boot and after-droplet of boot 1 in status.hooks', (d) =>
      reportedAll(d, [
        ['on-boot', boot1Id],
        ['after-droplet', boot1Id],
      ]),
    );
    const afterDroplet1 = hookRunOf(reported1, 'after-droplet', boot1Id);

    // the link drops and comes back in the same boot: after-droplet must not run a second time
    const connectedSince = reported1.status?.connectionStatusChangeTime;
    expect(device.vm.dropConnections()).toBeGreaterThan(0);
    await device.waitFor(
      'the device Online again on a new connection',
      (d) => isOnline(d) && d.status?.connectionStatusChangeTime !== connectedSince,
    );
    await device.idleFor(5_000); // room for a wrong second after-droplet run to show
    expect(hookRunOf(device.history.latest, 'after-droplet', boot1Id)).toEqual(afterDroplet1);

    // an agent-initiated reboot: the agent runs on-shutdown, then systemd reboots
    const started = Date.now();
    const nextBoot = device.vm.nextBoot(undefined, 1);
    await scenario.controlPlane.cli(['devices', 'reboot', device.name, '--force']);
    const online2 = await device.waitForBootOnline(await nextBoot);
    scenario.timings.since('reboot --force → Online again', started);
    const boot2Id = online2.status?.agent?.bootId;
    expect(boot2Id).not.toBe(boot1Id);
    const reported2 = await device.waitFor('on-shutdown of boot 1 and on-boot, after-droplet of boot 2 reported', (d) =>
      reportedAll(d, [
        ['on-shutdown', boot1Id],
        ['on-boot', boot2Id],
        ['after-droplet', boot2Id],
      ]),
    );
    for (const run of reported2.status?.hooks ?? []) expect(run).toMatchObject({ exitCode: 0, timedOut: false });

    await device.vm.powerCut();
    const [boot1, boot2] = device.vm.boots;
    expect(device.vm.boots.map((boot) => boot.exit)).toEqual(['reboot', 'power-cut']);
    const markers = parseMarkers((await device.vm.readDataFiles([MARKERS]))[MARKERS]);

    // each hook once per boot, in this order, in boot 1 then boot 2, the guest's clock going forward
    expect(markers.map((m) => [m.hook, m.boot])).toEqual([
      ['on-boot', boot1Id],
      ['after-droplet', boot1Id],
      ['on-shutdown', boot1Id],
      ['on-boot', boot2Id],
      ['after-droplet', boot2Id],
    ]);
    const [onBoot1, afterDropletMarker1, onShutdown1, onBoot2, afterDropletMarker2] = markers;
    for (let i = 1; i < markers.length; i++) expect(markers[i]?.at).toBeGreaterThan(markers[i - 1]?.at ?? Infinity);

    // on-boot finished before systemd started droplet
    const onBootRuns = [hookRunOf(reported1, 'on-boot', boot1Id), hookRunOf(reported2, 'on-boot', boot2Id)];
    for (const [i, [onBoot, afterDroplet]] of [
      [onBoot1, afterDropletMarker1],
      [onBoot2, afterDropletMarker2],
    ].entries()) {
      const dropletStart = Number(afterDroplet?.fields['droplet-started']) * 1000;
      expect(dropletStart).toBeGreaterThan(0);
      expect(onBoot?.at).toBeLessThan(dropletStart);
      expect(endOf(onBootRuns[i])).toBeLessThan(dropletStart); // as the run was recorded, too
    }

    // after-droplet ran once the agent was up (spec 000: whether or not its link is), once per boot: the dropped
    // and re-made connection did not run it again
    const connected1 = agentLog(boot1, 'connected to the control plane');
    const connected2 = agentLog(boot2, 'connected to the control plane');
    expect(connected1).toHaveLength(2); // the first connection and the one after the drop
    expect(connected2).toHaveLength(1);
    const agentUp = (marker: (typeof markers)[number] | undefined): number =>
      Number(marker?.fields['droplet-started']) * 1000;
    expect(afterDropletMarker1?.at).toBeGreaterThan(agentUp(afterDropletMarker1));
    expect(afterDropletMarker1?.at).toBeLessThan(connected1[1] ?? -Infinity);
    expect(afterDropletMarker2?.at).toBeGreaterThan(agentUp(afterDropletMarker2));
    expect(Date.parse(afterDroplet1?.startTime ?? '')).toBeGreaterThanOrEqual(agentUp(afterDropletMarker1));

    // on-shutdown: run by the agent before it asked systemd to reboot; the unit's ExecStop then skipped it
    const rebooting = agentLog(boot1, 'rebooting on command');
    expect(rebooting).toHaveLength(1);
    expect(onShutdown1?.at).toBeLessThan(rebooting[0] ?? -Infinity);
    expect(endOf(hookRunOf(reported2, 'on-shutdown', boot1Id))).toBeLessThanOrEqual(rebooting[0] ?? -Infinity);
    expect(agentLog(boot1, 'the on-shutdown hook already ran in this boot')).toHaveLength(1);
    expect(onShutdown1?.at).toBeLessThan(onBoot2?.at ?? -Infinity);
  });
});
