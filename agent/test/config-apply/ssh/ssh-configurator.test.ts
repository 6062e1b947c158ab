import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ConfigurationPart } from '@outpost/shared';
import { recordingCommands } from '../../../src/config-apply/command-runner.js';
import { partCondition } from '../../../src/config-apply/part-status.js';
import type { PartReport } from '../../../src/config-apply/part-status.js';
import { SshConfigurator } from '../../../src/config-apply/ssh/ssh-configurator.js';
import type { SshConfiguratorOptions } from '../../../src/config-apply/ssh/ssh-configurator.js';
import { systemRoot } from '../../../src/config-apply/system-root.js';
import { capturedLogger } from '../../helpers/captured-logger.js';
import { useTempDirs } from '../../helpers/temp-dir.js';

const tempDir = useTempDirs();

/** A real ed25519 public key in OpenSSH form. */
function ed25519Key(comment: string): string {
  const der = generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' });
  const raw = der.subarray(der.length - 32);
  const type = Buffer.from('ssh-ed25519');
  const blob = Buffer.concat([u32(type.length), type, u32(raw.length), raw]);
  return `ssh-ed25519 ${blob.toString('base64')} ${comment}`;
}
const u32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};

async function world(
  options: Partial<SshConfiguratorOptions> = {},
  answer?: Parameters<typeof recordingCommands>[0],
  withSystemctl = true,
) {
  const rootDir = await tempDir();
  // the simulated system's systemctl: commands are recorded, never run
  if (withSystemctl) {
    await mkdir(join(rootDir, 'usr/bin'), { recursive: true });
    await writeFile(join(rootDir, 'usr/bin/systemctl'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  }
  const deviceRoot = await tempDir();
  const commands = recordingCommands(answer);
  const reports: { part: ConfigurationPart; report: PartReport }[] = [];
  const ssh = new SshConfigurator({
    root: systemRoot(rootDir),
    deviceRoot,
    commands,
    sink: { report: (part, report) => reports.push({ part, report }) },
    logger: capturedLogger().logger,
    ...options,
  });
  await ssh.start();
  const last = (): PartReport => {
    const report = reports.at(-1)?.report;
    if (report === undefined) throw new Error('nothing reported');
    return report;
  };
  const file = (path: string): Promise<string> => readFile(join(rootDir, path), 'utf8');
  const systemctl = join(rootDir, 'usr/bin/systemctl');
  return { ssh, commands, reports, last, file, rootDir, deviceRoot, systemctl };
}

const DROP_IN = 'etc/ssh/sshd_config.d/90-outpost.conf';

describe('SshConfigurator', () => {
  it('writes the sshd drop-in and the authorized keys, reloads sshd, and says sshd was not asked', async () => {
    const w = await world();
    const key = ed25519Key('ops@example');
    await w.ssh.setDesired(
      {
        sshConfig: {
          port: 2222,
          disableSshPassword: true,
          ipAllowList: ['10.0.0.0/8', '2001:db8::/32', '192.168.1.7'],
          ipDenyList: ['10.9.9.9'],
          sshAuthorized: [{ sshaKey: key, from: '10.0.0.0/8', noPty: true, restrict: true }],
        },
      },
      7,
    );

    const dropIn = await w.file(DROP_IN);
    expect(dropIn).toContain('Port 2222\n');
    expect(dropIn).toContain('PasswordAuthentication no\nKbdInteractiveAuthentication no\n');
    expect(dropIn).toContain('AllowUsers *@10.0.0.0/8 *@2001:db8::/32 *@192.168.1.7\n');
    expect(dropIn).toContain('DenyUsers *@10.9.9.9\n');
    expect(dropIn).toContain(
      'AuthorizedKeysFile .ssh/authorized_keys .ssh/authorized_keys2 /etc/ssh/outpost/authorized_keys/%u\n',
    );
    expect(await w.file('etc/ssh/outpost/authorized_keys/root')).toContain(
      `restrict,from="10.0.0.0/8",no-pty ${key}\n`,
    );
    expect(w.commands.calls).toEqual([[w.systemctl, 'try-reload-or-restart', 'ssh']]);

    const report = w.last();
    expect(report).toMatchObject({ desiredGeneration: 7, appliedGeneration: 7, source: 'desired' });
    const condition = partCondition('ssh', report);
    expect(condition).toMatchObject({ type: 'SshConfigured', status: 'True', reason: 'Applied' });
    expect(condition.message).toContain(`sshd was not asked: the system root is ${w.rootDir}`);
  });

  it('checks with sshd -t where sshd can be asked, and takes back a drop-in sshd refuses', async () => {
    const w = await world({ sshd: { path: '/usr/sbin/sshd' } }, (argv) =>
      // sshd reads the drop-in in place: it refuses the one with port 2200
      argv[1] === '-t' && readFileSync(join(w.rootDir, DROP_IN), 'utf8').includes('Port 2200')
        ? { exitCode: 255, stdout: '', stderr: '/etc/ssh/sshd_config.d/90-outpost.conf line 2: Bad port\n' }
        : { exitCode: 0, stdout: '', stderr: '' },
    );
    await w.ssh.setDesired({ sshConfig: { disableSshPassword: true } }, 3);
    expect(w.last()).toMatchObject({ appliedGeneration: 3, source: 'desired', phase: { phase: 'applied' } });
    expect(partCondition('ssh', w.last()).message).toBe('generation 3 is in force');
    const good = await w.file(DROP_IN);

    w.commands.calls.length = 0;
    await w.ssh.setDesired({ sshConfig: { disableSshPassword: true, port: 2200 } }, 4);
    expect(w.commands.calls).toEqual([['/usr/sbin/sshd', '-t']]); // no reload
    expect(await w.file(DROP_IN)).toBe(good);
    const report = w.last();
    expect(report).toMatchObject({ desiredGeneration: 4, appliedGeneration: 3, source: 'known-good' });
    expect(partCondition('ssh', report)).toMatchObject({
      status: 'False',
      reason: 'Failed',
      message: expect.stringContaining('line 2: Bad port'),
    });
  });

  it('refuses a bad key by its own check and writes nothing', async () => {
    const w = await world();
    await w.ssh.setDesired({ sshConfig: { sshAuthorized: [{ sshaKey: 'ssh-ed25519 AAAA\nssh-rsa evil' }] } }, 2);
    expect(existsSync(join(w.rootDir, DROP_IN))).toBe(false);
    expect(w.commands.calls).toEqual([]);
    expect(partCondition('ssh', w.last())).toMatchObject({
      status: 'False',
      reason: 'Failed',
      message: expect.stringContaining('sshConfig.sshAuthorized[0].sshaKey'),
    });
  });

  it('refuses an allow-list entry that is no address', async () => {
    const w = await world();
    await w.ssh.setDesired({ sshConfig: { ipAllowList: ['not-an-ip'] } }, 2);
    expect(existsSync(join(w.rootDir, DROP_IN))).toBe(false);
    expect(w.last().phase).toEqual({
      phase: 'failed',
      error: 'sshConfig.ipAllowList[0]: "not-an-ip" is not an IP address or CIDR block',
    });
  });

  it('turns the server off and on again through systemctl', async () => {
    const w = await world({ unit: 'sshd' });
    await w.ssh.setDesired({ sshConfig: { disableSshServer: true } }, 1);
    expect(w.commands.calls).toEqual([[w.systemctl, 'disable', '--now', 'sshd']]);
    w.commands.calls.length = 0;
    // the spec no longer says so: Outpost turned it off, Outpost turns it on
    await w.ssh.setDesired({ sshConfig: {} }, 2);
    expect(w.commands.calls).toEqual([
      [w.systemctl, 'enable', '--now', 'sshd'],
      [w.systemctl, 'try-reload-or-restart', 'sshd'],
    ]);
  });

  it('reports a failing systemctl with its message', async () => {
    const w = await world({}, () => ({ exitCode: 5, stdout: '', stderr: 'Unit ssh.service not found.' }));
    await w.ssh.setDesired({ sshConfig: { disableSshServer: true } }, 1);
    expect(w.last().phase).toEqual({
      phase: 'failed',
      error: 'systemctl disable --now ssh failed (exit code 5): Unit ssh.service not found.',
    });
  });

  it('runs no systemctl where the system root has none, and says so', async () => {
    const w = await world({}, undefined, false);
    await w.ssh.setDesired({ sshConfig: { disableSshServer: true } }, 1);
    expect(w.commands.calls).toEqual([]);
    expect(partCondition('ssh', w.last()).message).toMatch(
      /^generation 1 is in force \(sshd was not asked: .*; systemctl was not run: it is not installed under the system root\)$/,
    );
  });

  it('removes its files when sshConfig goes away, and does nothing for an unchanged part', async () => {
    const w = await world();
    await w.ssh.setDesired({ sshConfig: { sshAuthorized: [{ sshaKey: ed25519Key('a') }] } }, 1);
    expect(existsSync(join(w.rootDir, 'etc/ssh/outpost/authorized_keys/root'))).toBe(true);
    const other = { sshConfig: { sshAuthorized: [{ sshaKey: ed25519Key('b') }] } };
    w.commands.calls.length = 0;
    await w.ssh.setDesired({ ...other, osVersion: '2.0.0' }, 2);
    expect(w.commands.calls).toHaveLength(1);
    // another part of the spec changed: nothing to do, and the desired generation stays
    await w.ssh.setDesired({ ...other, osVersion: '2.0.1' }, 3);
    expect(w.commands.calls).toHaveLength(1);
    expect(w.last().desiredGeneration).toBe(2);

    await w.ssh.setDesired({}, 4);
    expect(existsSync(join(w.rootDir, DROP_IN))).toBe(false);
    expect(existsSync(join(w.rootDir, 'etc/ssh/outpost/authorized_keys/root'))).toBe(false);
    expect(w.last()).toMatchObject({ desiredGeneration: 4, source: 'factory', phase: { phase: 'applied' } });
    expect(w.last().appliedGeneration).toBeUndefined();
  });

  it('keeps its state across restarts and reports it at start', async () => {
    const w = await world();
    await w.ssh.setDesired({ sshConfig: { port: 2022 } }, 5);
    const again = new SshConfigurator({
      root: systemRoot(w.rootDir),
      deviceRoot: w.deviceRoot,
      commands: w.commands,
      sink: { report: (part, report) => w.reports.push({ part, report }) },
      logger: capturedLogger().logger,
    });
    await again.start();
    expect(w.last()).toMatchObject({ desiredGeneration: 5, appliedGeneration: 5, source: 'desired' });
    w.commands.calls.length = 0;
    await again.setDesired({ sshConfig: { port: 2022 } }, 5);
    expect(w.commands.calls).toEqual([]);
    const state = JSON.parse(await readFile(join(w.deviceRoot, 'config/ssh/state.json'), 'utf8')) as object;
    expect(state).toMatchObject({ phase: 'applied', appliedGeneration: 5 });
  });
});
