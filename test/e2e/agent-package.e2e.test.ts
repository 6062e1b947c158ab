import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Condition, Device } from '@outpost/shared';
import { isOnline } from './harness/e2e-device.js';
import type { E2eDevice } from './harness/e2e-device.js';
import { osReadyOf } from './harness/device-history.js';
import { useScenario } from './harness/scenario.js';
import { agentLogRecords } from './harness/serial-log.js';

/** The test writes this file (scp) to freeze the agent; the watcher the after-droplet hook started takes it. */
const FREEZE_TRIGGER = '/outpost/data/e2e-freeze';
/** What the watcher saw of the restart, from systemd in the guest. */
const WATCHDOG_REPORT = '/outpost/data/e2e-watchdog';

/**
 * The after-droplet hook starts, as a transient unit outside droplet.service (so it outlives the agent's restart),
 * a watcher that waits for FREEZE_TRIGGER, sends SIGUSR2 to droplet's main process (with
 * OUTPOST_TEST_FREEZE_ON_SIGUSR2=1 the agent blocks its event loop for good), waits until systemd runs a new main
 * process, and writes what systemd says about it: restart counter and the unit's journal lines on the watchdog.
 */
const WATCHER = `
while [ ! -e ${FREEZE_TRIGGER} ]; do sleep 1; done
rm -f ${FREEZE_TRIGGER}
pid=$(systemctl show -p MainPID --value droplet.service)
before=$(systemctl show -p NRestarts --value droplet.service)
kill -USR2 "$pid"
frozen=$(date +%s.%N)
while [ "$(systemctl show -p MainPID --value droplet.service)" = "$pid" ] || ! systemctl is-active -q droplet.service; do
  sleep 1
done
{
  echo "frozen-pid=$pid"
  echo "new-pid=$(systemctl show -p MainPID --value droplet.service)"
  echo "restarts-before=$before"
  echo "restarts-after=$(systemctl show -p NRestarts --value droplet.service)"
  echo "frozen-at=$frozen"
  echo "active-again-at=$(date +%s.%N)"
  journalctl -b -u droplet.service -o cat --no-pager | grep -iE 'watchdog|restart counter'
} > ${WATCHDOG_REPORT}.tmp
mv ${WATCHDOG_REPORT}.tmp ${WATCHDOG_REPORT}
sync
`;

const WATCHER_HOOK = [
  '#!/bin/sh',
  '# e2e watchdog scenario: a watcher that freezes droplet on request (see agent-package.e2e.test.ts)',
  `cat > /run/e2e-freeze-watcher.sh <<'WATCHER'${WATCHER}WATCHER`,
  'systemd-run --quiet --collect --unit=e2e-freeze-watcher /bin/sh /run/e2e-freeze-watcher.sh',
  '',
].join('\n');

/**
 * The least time from moving the maintenance window to its opening. In it the agent only has to get the new spec
 * through its connection and report WaitingForWindow with the new start: a spec round trip (the SSH change below,
 * sshd -t in the guest included, takes ~4 s on an idle machine, 25 s at a load of 19). Rounded up to a minute
 * start, the window opens 45-105 s after the change.
 */
const WINDOW_LEAD_MS = 45_000;

/** A fresh OpenSSH ed25519 public key line (`ssh-ed25519 AAAA… comment`). */
function opensshPublicKey(comment: string): string {
  const { publicKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  const field = (bytes: Buffer): Buffer => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    return Buffer.concat([length, bytes]);
  };
  return `ssh-ed25519 ${Buffer.concat([field(Buffer.from('ssh-ed25519')), field(raw)]).toString('base64')} ${comment}`;
}

const sshCondition = (d: Device): Condition | undefined =>
  d.status?.conditions?.find((c) => c.type === 'SshConfigured');

/** `key=value` lines of the watcher's report. */
const reportValue = (report: string, key: string): string | undefined =>
  report
    .split('\n')
    .find((line) => line.startsWith(`${key}=`))
    ?.slice(key.length + 1);

/**
 * Issues 18 and 19 on the image whose agent dpkg installed from droplet's .deb (Type=notify, WatchdogSec=30s, the
 * image's drop-in over it), one device in 2 boots: an SSH key set through the API lands in the guest's sshd
 * configuration after `sshd -t` passed in the guest (the files fetched back with scp); a frozen agent is killed by
 * systemd's watchdog and restarted (the control plane sees it reconnect in the same boot, systemd's journal says
 * why); an upgrade written outside the maintenance window waits in WaitingForWindow and switches slots only once a
 * window (moved to open at the first minute start at least WINDOW_LEAD_MS later) is open.
 */
describe('the packaged agent on a real guest: SSH, watchdog, maintenance window', () => {
  const scenario = useScenario({ publish: ['1.1.0'] });
  const local = mkdtempSync(join(tmpdir(), 'outpost-e2e-agent-package-'));
  afterAll(() => rmSync(local, { recursive: true, force: true }));

  async function fetch(device: E2eDevice, path: string, as: string): Promise<string> {
    await scenario.controlPlane.cli(['devices', 'scp', `${device.name}:${path}`, join(local, as)]);
    return readFileSync(join(local, as), 'utf8');
  }

  /** Fetches `path` once it exists (the guest writes it when it is done); fails after `attempts`. */
  async function fetchOnceWritten(device: E2eDevice, path: string, as: string, attempts = 60): Promise<string> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await fetch(device, path, as);
      } catch (err) {
        if (attempt >= attempts) throw err;
        await device.idleFor(2_000);
      }
    }
  }

  it('applies SSH with sshd -t in the guest, survives a frozen event loop, and upgrades only in a window', async () => {
    const { timings, controlPlane } = scenario;
    const device = await scenario.device('agent-package', {
      maxBoots: 3,
      commitTimeoutSeconds: 240,
      dropletEnv: { OUTPOST_TEST_FREEZE_ON_SIGUSR2: '1' },
      hookScripts: { 'after-droplet': WATCHER_HOOK },
    });
    const booted = Date.now();
    const online = await device.powerOn();
    await device.waitForConverged('1.0.0');
    const bootId = online.status?.agent?.bootId;
    expect(bootId).toBeDefined();
    // the agent runs from the package, not from a copy beside it
    const bootLog = agentLogRecords(readFileSync(device.vm.boots[0]?.serialLog ?? '', 'utf8'));
    expect(bootLog.some((r) => r.msg === 'droplet started')).toBe(true);
    timings.since('agent-package boot 1: QEMU start → converged 1.0.0', booted);

    // 1. SSH (issue 18): the key lands in the guest's sshd configuration, checked by sshd -t in the guest
    const key = opensshPublicKey('e2e@outpost');
    let started = Date.now();
    const sshUpdate = await controlPlane.admin.update<Device>(
      { name: device.name, spec: { sshConfig: { disableSshPassword: true, sshAuthorized: [{ sshaKey: key }] } } },
      { updateMask: 'spec.sshConfig' },
    );
    const sshGeneration = sshUpdate.metadata?.generation ?? 0;
    const sshApplied = await device.waitFor(
      'SshConfigured True/Applied',
      (d) => d.status?.configuration?.ssh?.appliedGeneration === sshGeneration && sshCondition(d)?.status === 'True',
    );
    timings.since('ssh config written → applied (sshd -t in the guest)', started);
    expect(sshCondition(sshApplied)).toMatchObject({ status: 'True', reason: 'Applied' });
    // the agent asked the guest's sshd: no note that it was not asked
    expect(sshCondition(sshApplied)?.message ?? '').not.toMatch(/sshd was not asked/);
    expect(sshApplied.status?.configuration?.ssh).toMatchObject({ source: 'desired' });
    const dropIn = await fetch(device, '/etc/ssh/sshd_config.d/90-outpost.conf', 'sshd-drop-in.conf');
    expect(dropIn).toContain('PasswordAuthentication no\n');
    expect(dropIn).toContain(
      'AuthorizedKeysFile .ssh/authorized_keys .ssh/authorized_keys2 /etc/ssh/outpost/authorized_keys/%u\n',
    );
    const authorized = await fetch(device, '/etc/ssh/outpost/authorized_keys/root', 'authorized_keys');
    expect(authorized.split('\n')).toContain(key);
    // the host key was made on this device at its first boot (the image ships none)
    const hostKey = await fetch(device, '/etc/ssh/ssh_host_ed25519_key.pub', 'host-key.pub');
    expect(hostKey).toMatch(/^ssh-ed25519 /);

    // 2. watchdog (issue 19): a frozen event loop is killed by systemd and the agent restarted, in the same boot
    const frozeAt = Date.now();
    await controlPlane.cli(['devices', 'scp', join(local, 'host-key.pub'), `${device.name}:${FREEZE_TRIGGER}`]);
    await device.waitFor('the frozen agent disconnected', (d) => !isOnline(d));
    timings.since('freeze → disconnected (watchdog kill)', frozeAt);
    const back = await device.waitFor('the restarted agent Online again', (d) => isOnline(d));
    timings.since('freeze → Online again (watchdog restart)', frozeAt);
    expect(back.status?.agent?.bootId).toBe(bootId);
    const report = await fetchOnceWritten(device, WATCHDOG_REPORT, 'watchdog-report');
    expect(report).toMatch(/Watchdog timeout/);
    expect(Number(reportValue(report, 'restarts-after'))).toBe(Number(reportValue(report, 'restarts-before')) + 1);
    expect(reportValue(report, 'new-pid')).not.toBe(reportValue(report, 'frozen-pid'));
    const frozenFor = Number(reportValue(report, 'active-again-at')) - Number(reportValue(report, 'frozen-at'));
    timings.record('watchdog: SIGUSR2 freeze → droplet active again (guest clock)', frozenFor);
    const serial = readFileSync(device.vm.boots[0]?.serialLog ?? '', 'utf8');
    expect(serial).toContain('OUTPOST_TEST_FREEZE_ON_SIGUSR2: freezing the event loop');
    expect(agentLogRecords(serial).filter((r) => r.msg === 'droplet started').length).toBeGreaterThanOrEqual(2);

    // 3. maintenance window (issue 19): written outside a window, the upgrade waits, then switches once one opens
    const nextNewYear = new Date(Date.UTC(new Date().getUTCFullYear() + 1, 0, 1)).toISOString();
    started = Date.now();
    await controlPlane.admin.update<Device>(
      {
        name: device.name,
        spec: {
          osVersion: '1.1.0',
          updatePolicy: { maintenanceWindows: [{ schedule: '0 0 1 1 *', duration: '1h', timeZone: 'UTC' }] },
        },
      },
      { updateMask: 'spec.osVersion,spec.updatePolicy' },
    );
    const waiting = await device.waitFor(
      'OSReady WaitingForWindow until New Year',
      (d) => osReadyOf(d)?.reason === 'WaitingForWindow' && (osReadyOf(d)?.message ?? '').includes(nextNewYear),
      15 * 60_000,
    );
    timings.since('1.1.0 written outside the window → WaitingForWindow (downloaded)', started);
    expect(waiting.status?.maintenance).toMatchObject({ windows: 1, windowOpen: false });
    expect(Date.parse(waiting.status?.maintenance?.nextWindowStart ?? '')).toBe(Date.parse(nextNewYear));
    expect(waiting.status?.deviceInfo?.osVersion).toBe('1.0.0');
    expect(device.vm.boots).toHaveLength(1);

    // a window opening at the start of the first minute at least WINDOW_LEAD_MS from now (UTC, the guest's zone)
    const opensAtMs = Math.ceil((Date.now() + WINDOW_LEAD_MS) / 60_000) * 60_000;
    const opensAt = new Date(opensAtMs);
    const schedule = `${opensAt.getUTCMinutes()} ${opensAt.getUTCHours()} * * *`;
    const movedAt = Date.now();
    await controlPlane.admin.update<Device>(
      {
        name: device.name,
        spec: { updatePolicy: { maintenanceWindows: [{ schedule, duration: '30m', timeZone: 'UTC' }] } },
      },
      { updateMask: 'spec.updatePolicy' },
    );
    await device.waitFor(`OSReady WaitingForWindow for the window at ${opensAt.toISOString()}`, (d) =>
      (osReadyOf(d)?.message ?? '').includes(opensAt.toISOString()),
    );
    const stillWaitingAt = Date.now();
    timings.since('window moved → WaitingForWindow for it (of the lead)', movedAt);
    expect(stillWaitingAt, 'the new window was reported before it opened').toBeLessThan(opensAtMs);
    const converged = await device.waitForConverged('1.1.0', 15 * 60_000);
    timings.since('window opens → converged 1.1.0 on slot B', opensAtMs);
    timings.record('WaitingForWindow (new window) → window opens', (opensAtMs - stillWaitingAt) / 1000);
    expect(converged.status?.osUpdate?.bootEnv).toMatchObject({ active_slot: 'B' });
    // nothing moved towards the switch before the window opened (a few seconds of slack for the guest's clock)
    const afterWaiting = device.history
      .osReadyTransitions()
      .filter((t) => t.at >= stillWaitingAt && t.reason !== 'WaitingForWindow');
    expect(afterWaiting.length).toBeGreaterThan(0);
    expect(afterWaiting[0]?.at ?? 0).toBeGreaterThanOrEqual(opensAtMs - 5_000);
    expect(device.vm.boots.length).toBe(2);
    expect(converged.status?.maintenance).toMatchObject({ windowOpen: true });
  });
});
