import { randomBytes } from 'node:crypto';
import { chmod, copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { HookName } from '@outpost/shared';
import { run } from './command.js';
import type { ControlPlane } from './control-plane.js';

/** The control plane as the guest reaches it: slirp guestfwd to relay.mjs to 127.0.0.1. */
export const GUEST_SERVER_URL = 'http://10.0.2.100:8080';

/** Files the harness puts on the data partition, as paths inside it ({device_root} = /outpost in the guest). */
export const DATA_FILES = {
  /** written at provisioning; must survive every upgrade, rollback and power cut */
  canary: '/data/e2e-canary',
  /** one line per hook run: `<hook> <unix time> slot=<A|B> version=<os version>` */
  hookLog: '/data/e2e-hook-runs',
} as const;

export interface DeviceRootOptions {
  /** projects/{p}/regions/{r}/devices/{d} */
  deviceName: string;
  controlPlane: ControlPlane;
  deviceType: string;
  factoryVersion: string;
  /** the public key OS images are signed with: {device_root}/config/trust/os-signing.pub */
  publicKey: string;
  /** an uncommitted trial boot reboots into the fallback after this long (droplet --commit-timeout) */
  commitTimeoutSeconds: number;
  /** more DROPLET_* variables for config/droplet.env */
  dropletEnv?: Record<string, string>;
  /** hook scripts for config/hooks/, replacing the default on-boot and on-shutdown hooks of the same name */
  hookScripts?: Partial<Record<HookName, string>>;
  /** an encrypted device: `--encrypted`, the recovery key written to this file (and config/recovery-key) */
  recoveryKeyFile?: string;
}

export interface ProvisionedRoot {
  /** the folder the data partition is built from */
  dir: string;
  /** the canary's content */
  canary: string;
}

/**
 * Provisions a device with the real CLI (`outpost devices provision`) into `dir`, and adds what a
 * factory would: the trusted signing key, hooks and a data file.
 */
export async function provisionDeviceRoot(dir: string, options: DeviceRootOptions): Promise<ProvisionedRoot> {
  await options.controlPlane.cli([
    'devices',
    'provision',
    options.deviceName,
    '--device-root',
    dir,
    '--device-server',
    GUEST_SERVER_URL,
    '--boot-backend',
    'grubenv',
    '--device-type',
    options.deviceType,
    '--factory-version',
    options.factoryVersion,
    ...(options.recoveryKeyFile === undefined ? [] : ['--encrypted', '--recovery-key-file', options.recoveryKeyFile]),
  ]);
  await mkdir(join(dir, 'config', 'trust'), { recursive: true });
  await copyFile(options.publicKey, join(dir, 'config', 'trust', 'os-signing.pub'));

  const hooks = join(dir, 'config', 'hooks');
  await mkdir(hooks, { recursive: true });
  const scripts = {
    'on-boot': hookScript('on-boot'),
    'on-shutdown': hookScript('on-shutdown'),
    ...options.hookScripts,
  };
  for (const [hook, script] of Object.entries(scripts)) {
    if (script === undefined) continue;
    await writeFile(join(hooks, hook), script);
    await chmod(join(hooks, hook), 0o755);
  }

  await mkdir(join(dir, 'data'), { recursive: true });
  const canary = `provisioned ${new Date().toISOString()} ${randomBytes(8).toString('hex')}\n`;
  await writeFile(join(dir, DATA_FILES.canary), canary);

  const env = {
    DROPLET_COMMIT_TIMEOUT: String(options.commitTimeoutSeconds),
    DROPLET_LOG_LEVEL: 'info',
    // plain http:// to 10.0.2.100 is not loopback to the agent, yet it never leaves this machine: QEMU's restricted
    // slirp network hands it to relay.mjs, which connects to the control plane on 127.0.0.1
    DROPLET_ARGS: '--insecure',
    ...options.dropletEnv,
  };
  const envFile = Object.entries(env).map(([key, value]) => `${key}=${value}\n`);
  await writeFile(join(dir, 'config', 'droplet.env'), envFile.join(''));
  return { dir, canary };
}

function hookScript(hook: string): string {
  return [
    '#!/bin/sh',
    `# e2e: record that ${hook} ran, on which slot and version`,
    "slot=$(sed -n 's/.*ab\\.slot=\\([AB]\\).*/\\1/p' /proc/cmdline)",
    `echo "${hook} $(date +%s) slot=$slot version=$(cat /etc/outpost/os-version)" >> /outpost${DATA_FILES.hookLog}`,
    'sync',
    '',
  ].join('\n');
}

/** An ext4 filesystem of `bytes` (the partition's size, or its LUKS2 payload's) holding `dir` (mkfs.ext4 -d: no mount). */
export async function buildDataImage(dir: string, bytes: number, imageFile: string): Promise<void> {
  await run('mkfs.ext4', ['-q', '-F', '-L', 'data', '-d', dir, imageFile, `${bytes / 1024}k`]);
}
