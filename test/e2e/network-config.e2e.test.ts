import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Condition, Device } from '@outpost/shared';
import { isOnline } from './harness/e2e-device.js';
import type { E2eDevice } from './harness/e2e-device.js';
import { useScenario } from './harness/scenario.js';
import { agentLogRecords } from './harness/serial-log.js';

/** Where the after-droplet hook records the guest's IPv4 addresses, inside the data partition. */
const ADDRESS_LOG = '/data/e2e-network-addresses';
/** slirp's network: DHCP hands out 10.0.2.15, the control plane is reached at 10.0.2.100 */
const SLIRP_ADDRESS = '10.0.2.15';
const SECOND_ADDRESS = '10.0.2.16';
const GRACE_SECONDS = 30;

/**
 * Once per boot, when droplet starts: `boot=<boot id> <ip -o -4 addr show, one line per address>`, once the guest
 * holds an address in slirp's subnet (DHCP may still be on its way when the hook starts).
 */
const ADDRESS_HOOK = [
  '#!/bin/sh',
  '# e2e network scenario: the IPv4 addresses the guest holds in this boot',
  "for i in $(seq 60); do ip -o -4 addr show | grep -q ' inet 10\\.0\\.2\\.' && break; sleep 1; done",
  `ip -o -4 addr show | sed "s/^/boot=$(cat /proc/sys/kernel/random/boot_id) /" >> /outpost${ADDRESS_LOG}`,
  'sync',
  '',
].join('\n');

const networkCondition = (d: Device): Condition | undefined =>
  d.status?.conditions?.find((c) => c.type === 'NetworkConfigured');

const uplinkYaml = (uplink: string, settings: string): string =>
  `network:\n  version: 2\n  ethernets:\n    ${uplink}:\n${settings}`;

/** The interface that holds slirp's DHCP address (its name depends on QEMU's PCI layout), once reported. */
const uplinkOf = (device: Device): string | undefined =>
  Object.entries(device.status?.deviceInfo?.networkInterfaces ?? {}).find(([, nic]) =>
    nic.ipAddressV4?.includes(SLIRP_ADDRESS),
  )?.[0];

/**
 * Issue 18 on a real guest under systemd-networkd, one device through the whole story: a second static address on
 * the uplink is applied and kept (Online, NetworkConfigured True/Applied); the uplink's address moved to a wrong
 * subnet loses the link and is restored by the agent once the grace period ends, the device comes back Online and
 * reports False/RolledBack (the time from the change to Online again is printed); another bad change is interrupted
 * by a power cut during its trial, and the next boot comes up on the known-good network (restored by `droplet
 * restore-config` before the agent started) and reports that too.
 */
describe('network configuration with a dead-man switch', () => {
  const scenario = useScenario();

  async function setNetwork(device: E2eDevice, yaml: string, graceSeconds: number): Promise<number> {
    const updated = await scenario.controlPlane.admin.update<Device>(
      { name: device.name, spec: { netplanYamlConfig: yaml, networkConfigGraceSeconds: graceSeconds } },
      { updateMask: 'spec.netplanYamlConfig,spec.networkConfigGraceSeconds' },
    );
    return updated.metadata?.generation ?? 0;
  }

  it('keeps a good change, rolls a bad one back within the grace period, and boots a cut trial into known-good', async () => {
    const { timings } = scenario;
    const device = await scenario.device('network', {
      maxBoots: 2,
      hookScripts: { 'after-droplet': ADDRESS_HOOK },
    });
    await device.powerOn();
    const first = await device.waitFor(
      `the interface holding ${SLIRP_ADDRESS} reported`,
      (d) => uplinkOf(d) !== undefined,
    );
    const uplink = uplinkOf(first) ?? '';
    const routeViaSlirp = '      routes: [{to: default, via: 10.0.2.2}]\n';

    // 1. a second static address on the uplink: the link comes back through it, the change is kept
    let started = Date.now();
    const goodGeneration = await setNetwork(
      device,
      uplinkYaml(uplink, `      addresses: [${SLIRP_ADDRESS}/24, ${SECOND_ADDRESS}/24]\n${routeViaSlirp}`),
      GRACE_SECONDS,
    );
    const applied = await device.waitFor(
      `NetworkConfigured True/Applied for generation ${goodGeneration}`,
      (d) =>
        isOnline(d) &&
        d.status?.configuration?.network?.appliedGeneration === goodGeneration &&
        networkCondition(d)?.reason === 'Applied',
    );
    timings.since('good network change (second static address): PUT → applied', started);
    expect(networkCondition(applied)?.status).toBe('True');
    expect(applied.status?.configuration?.network).toMatchObject({
      source: 'desired',
      desiredGeneration: goodGeneration,
    });
    expect(applied.status?.configuration?.network?.lastError).toBeUndefined();

    // 2. the uplink's address moved to a wrong subnet: the link is lost, the agent restores the known-good network
    started = Date.now();
    const badGeneration = await setNetwork(
      device,
      uplinkYaml(uplink, '      addresses: [192.168.77.15/24]\n      routes: [{to: default, via: 192.168.77.1}]\n'),
      GRACE_SECONDS,
    );
    const rolledBack = await device.waitFor(
      'Online again with NetworkConfigured False/RolledBack',
      (d) => isOnline(d) && networkCondition(d)?.reason === 'RolledBack',
      (GRACE_SECONDS + 120) * 1000,
    );
    const backAfter = timings.since('bad network change (wrong subnet): PUT → Online again (rolled back)', started);
    // the link was lost meanwhile (the control plane saw the device Offline)
    const lost = device.history.observations.find((o) => o.at >= started && !isOnline(o.device));
    expect(lost).toBeDefined();
    timings.record('bad network change: PUT → Offline seen by the control plane', (lost!.at - started) / 1000);
    // restored by the grace period (not before it), and the device was back soon after
    expect(backAfter).toBeGreaterThanOrEqual(GRACE_SECONDS);
    expect(backAfter).toBeLessThan(GRACE_SECONDS + 60);
    expect(networkCondition(rolledBack)).toMatchObject({ status: 'False' });
    expect(networkCondition(rolledBack)?.message).toContain(
      `did not come back within ${GRACE_SECONDS} s of applying generation ${badGeneration}; restored the known-good configuration (generation ${goodGeneration})`,
    );
    expect(rolledBack.status?.configuration?.network).toMatchObject({
      desiredGeneration: badGeneration,
      appliedGeneration: goodGeneration,
      source: 'known-good',
    });

    // 3. another bad change, and a power cut during its trial (a grace period long enough never to end first)
    started = Date.now();
    const cutGeneration = await setNetwork(
      device,
      uplinkYaml(uplink, '      addresses: [192.168.88.15/24]\n      routes: [{to: default, via: 192.168.88.1}]\n'),
      600,
    );
    await device.waitFor('Offline after the change on trial', (d) => !isOnline(d), 120_000);
    const cutBoot = await device.vm.powerCut();
    timings.since('network change on trial: PUT → power cut', started);

    const afterCut = Date.now();
    const back = await device.powerOn();
    const reported = await device.waitFor(
      'NetworkConfigured False/RolledBack for the trial the power cut interrupted',
      (d) =>
        isOnline(d) &&
        networkCondition(d)?.reason === 'RolledBack' &&
        d.status?.configuration?.network?.desiredGeneration === cutGeneration,
    );
    timings.since('power cut during a network trial: power on → Online and reported', afterCut);
    expect(networkCondition(reported)?.message).toContain(
      `the device restarted during the trial of network generation ${cutGeneration}; restored the known-good configuration (generation ${goodGeneration})`,
    );
    expect(reported.status?.configuration?.network).toMatchObject({
      appliedGeneration: goodGeneration,
      source: 'known-good',
    });

    // the boot path restored it before the agent started: restore-config's record comes before droplet's start
    const bootLog = agentLogRecords(readFileSync(device.vm.currentBoot?.serialLog ?? '', 'utf8'));
    const restoredAt = bootLog.find((r) => r.msg.startsWith('the device restarted during the trial'))?.time;
    const agentStartedAt = bootLog.find((r) => r.msg === 'droplet started')?.time;
    expect(restoredAt).toBeDefined();
    expect(agentStartedAt).toBeDefined();
    expect(restoredAt!).toBeLessThan(agentStartedAt!);
    expect(device.vm.boots.map((b) => b.exit ?? 'running')).toEqual(['power-cut', 'running']);
    expect(cutBoot.index).toBe(1);

    // the guest's own addresses in each boot: DHCP's at first, the known-good static pair after the cut
    const bootIds = [first, back].map((d) => d.status?.agent?.bootId);
    // the address hook (after-droplet) of this boot has run and is reported before the power goes
    await device.waitFor('the after-droplet hook of the boot after the cut reported', (d) =>
      (d.status?.hooks ?? []).some((run) => run.hook === 'after-droplet' && run.bootId === bootIds[1]),
    );
    await device.vm.powerCut();
    const files = await device.vm.readDataFiles([ADDRESS_LOG]);
    const lines = (files[ADDRESS_LOG] ?? '').split('\n');
    const addressesIn = (bootId: string | undefined): string[] =>
      lines
        .filter((line) => line.startsWith(`boot=${bootId} `) && line.includes(` ${uplink} `))
        .map((line) => /inet (\S+)/.exec(line)?.[1] ?? '');
    expect(addressesIn(bootIds[0]), files[ADDRESS_LOG]).toEqual([`${SLIRP_ADDRESS}/24`]);
    expect(addressesIn(bootIds[1]).sort(), files[ADDRESS_LOG]).toEqual([`${SLIRP_ADDRESS}/24`, `${SECOND_ADDRESS}/24`]);
  });
});
