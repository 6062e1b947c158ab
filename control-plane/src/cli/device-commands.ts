import { mkdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  ApiError,
  deviceDefinition,
  healthCheckDefinition,
  pathExists,
  remoteSessionDefinition,
  stageFileDeviceKey,
  writeFileAtomic,
} from '@outpost/shared';
import type { Device, OutpostClient } from '@outpost/shared';
import type { Command } from 'commander';
import { connectionOf } from './connection.js';
import type { ContextFactory } from './context.js';
import { HEALTH_CHECK_COLUMNS } from './health-commands.js';
import { registerResourceCommands } from './resource-commands.js';
import { registerPowerCommands } from './power-commands.js';
import { registerRemoteCommands } from './remote-commands.js';
import { registerProvisioningTokenCommands } from './provisioning-token-commands.js';
import { DEVICE_RECOVERY_KEY_FILE, newRecoveryKey, writeNewSecretFile } from './recovery-key.js';
import { registerRolloutCommands } from './rollout-commands.js';
import { registerTransferCommands } from './transfer-commands.js';
import { UsageError } from './usage-error.js';
import { registerWaveCommands } from './wave-commands.js';

interface ProvisionOptions {
  deviceRoot: string;
  deviceServer?: string;
  deviceType?: string;
  bootBackend?: string;
  factoryVersion?: string;
  encrypted?: boolean;
  recoveryKeyFile?: string;
}

/** The recovery key of an encrypted device: one copy for the agent to enrol, the other only where the operator says. */
async function provisionRecoveryKey(
  ctx: { print(line: string): void; note(line: string): void },
  root: string,
  opts: ProvisionOptions,
): Promise<void> {
  const key = newRecoveryKey();
  if (opts.recoveryKeyFile !== undefined) await writeNewSecretFile(resolve(opts.recoveryKeyFile), key);
  await writeFileAtomic(join(root, 'config', DEVICE_RECOVERY_KEY_FILE), key, 0o600);
  if (opts.bootBackend === 'file') await mkdir(join(root, 'sim-tpm'), { recursive: true });
  if (opts.recoveryKeyFile === undefined) {
    ctx.print(`recovery key (shown once, Outpost keeps no copy; store it now): ${key}`);
  } else {
    ctx.print(`recovery key written to ${resolve(opts.recoveryKeyFile)} (Outpost keeps no other copy)`);
  }
  ctx.note('the agent enrols the recovery key at its first start and then deletes its copy in config/');
}

/** `outpost devices ...`: the Device resource's verbs plus provisioning, credentials, waves and rollouts. */
export function registerDeviceCommands(program: Command, ctxFactory: ContextFactory): Command {
  const group = program.command('devices').description('devices and their agents (spec 000)');
  registerResourceCommands(group, [deviceDefinition, healthCheckDefinition, remoteSessionDefinition], ctxFactory, {
    columns: {
      devices: [
        { header: 'NAME', path: 'name' },
        { header: 'STATUS', path: 'status.connectionStatus' },
        { header: 'DESIRED', path: 'spec.osVersion' },
        { header: 'RUNNING', path: 'status.deviceInfo.osVersion' },
        { header: 'TYPE', path: 'status.deviceInfo.deviceType' },
      ],
      healthChecks: HEALTH_CHECK_COLUMNS,
      remoteSessions: [
        { header: 'NAME', path: 'name' },
        { header: 'KIND', path: 'kind' },
        { header: 'KEY', path: 'keyId' },
        { header: 'COMMAND', path: 'command' },
        { header: 'TARGET', path: 'target' },
        { header: 'START', path: 'startTime' },
        { header: 'SECONDS', path: 'durationSeconds' },
        { header: 'IN', path: 'bytesIn' },
        { header: 'OUT', path: 'bytesOut' },
        { header: 'ENDING', path: 'ending' },
        { header: 'EXIT', path: 'exitCode' },
      ],
    },
  });

  group
    .command('provision <device_name>')
    .description(
      'create the device if needed, make its ed25519 key pair in <dir>/config/identity/ (the server stores only the public key) and write the agent configuration into <dir>/config/ (then run: droplet --device-root <dir>)',
    )
    .requiredOption('--device-root <dir>', "the device's persistent root ({device_root})")
    .option('--device-server <url>', 'the control plane address as the device reaches it (default: --server)')
    .option('--device-type <type>', 'device type, written into the agent configuration and recorded on the device')
    .option('--boot-backend <backend>', 'grubenv, uboot, file or none')
    .option(
      '--factory-version <version>',
      'the OS version the device shipped with, recorded on the device until its agent reports',
    )
    .option(
      '--encrypted',
      'the data partition is encrypted: make a recovery key, shown once (or written to --recovery-key-file), and leave it in <dir>/config/recovery-key for the agent to enrol as a second key slot (it removes that copy); with --boot-backend file, also makes <dir>/sim-tpm/ (the simulated TPM)',
    )
    .option(
      '--recovery-key-file <path>',
      'with --encrypted: write the recovery key here (mode 0600, a new file) instead of printing it',
    )
    .action(async (deviceName: string, opts: ProvisionOptions, command: Command) => {
      const ctx = ctxFactory(command);
      if (opts.recoveryKeyFile !== undefined && opts.encrypted !== true) {
        throw new UsageError('--recovery-key-file needs --encrypted');
      }
      if (opts.recoveryKeyFile !== undefined && (await pathExists(resolve(opts.recoveryKeyFile)))) {
        throw new UsageError(`${opts.recoveryKeyFile} exists: the recovery key goes into a new file`);
      }
      if (opts.encrypted === true && opts.bootBackend === 'none') {
        throw new UsageError(
          '--encrypted needs a managed OS: with boot backend none the agent leaves encryption alone',
        );
      }
      await ensureDevice(ctx.client, deviceName);
      // the server records the type and factory version until the agent reports its own, so that the rules of
      // spec.osVersion hold from now on; it takes the device's new public key in the same request
      const facts: Record<string, string> = {};
      if (opts.deviceType) facts['deviceType'] = opts.deviceType;
      if (opts.factoryVersion) facts['factoryVersion'] = opts.factoryVersion;
      const root = resolve(opts.deviceRoot);
      await registerNewKey(ctx.client, `/v1/${deviceName}:provision`, root, facts);
      const config: Record<string, unknown> = { server: opts.deviceServer ?? connectionOf(command).server, deviceName };
      if (opts.deviceType) config['deviceType'] = opts.deviceType;
      if (opts.bootBackend) config['bootBackend'] = opts.bootBackend;
      if (opts.factoryVersion) config['factoryVersion'] = opts.factoryVersion;
      await writeFileAtomic(join(root, 'config', 'droplet.json'), JSON.stringify(config, null, 2) + '\n', 0o600);
      ctx.print(`provisioned ${deviceName} into ${join(root, 'config')}`);
      if (opts.encrypted === true) await provisionRecoveryKey(ctx, root, opts);
      ctx.note(`start its agent with: droplet --device-root ${root}`);
    });

  group
    .command('issue-credential <device_name>')
    .description(
      'rotate the device credential: with --device-root, re-key (a new key pair in <dir>/config/identity/); without, issue a bearer credential and print it once. Either way the old credential or key stops working',
    )
    .option('--device-root <dir>', 're-key the device whose persistent root ({device_root}) is here')
    .action(async (deviceName: string, opts: { deviceRoot?: string }, command: Command) => {
      const ctx = ctxFactory(command);
      if (opts.deviceRoot !== undefined) {
        const root = resolve(opts.deviceRoot);
        await registerNewKey(ctx.client, `/v1/${deviceName}:issueCredential`, root, {});
        ctx.print(`re-keyed ${deviceName}: its new key pair is in ${join(root, 'config', 'identity')}`);
        return;
      }
      const result = await ctx.client.request<{ credential: string }>('POST', `/v1/${deviceName}:issueCredential`, {
        body: {},
      });
      ctx.print(result.credential);
    });

  group
    .command('revoke-credential <device_name>')
    .description('revoke the device credential: its agent can no longer connect')
    .action(async (deviceName: string, _opts: unknown, command: Command) => {
      const ctx = ctxFactory(command);
      await ctx.client.request('POST', `/v1/${deviceName}:revokeCredential`, { body: {} });
      ctx.print(`revoked the credential of ${deviceName}`);
    });

  registerProvisioningTokenCommands(group, ctxFactory);

  registerRolloutCommands(group, ctxFactory);
  registerWaveCommands(group, ctxFactory);
  registerPowerCommands(group, ctxFactory);
  registerTransferCommands(group, ctxFactory);
  registerRemoteCommands(group);
  return group;
}

/**
 * Makes a new key pair for the device root and sends its public key with `body` to `path`; the pair replaces the
 * root's key (and any bearer credential file) only once the server took it.
 */
async function registerNewKey(
  client: OutpostClient,
  path: string,
  root: string,
  body: Record<string, string>,
): Promise<void> {
  const staged = await stageFileDeviceKey(join(root, 'config', 'identity'));
  try {
    await client.request('POST', path, { body: { ...body, publicKey: await staged.key.publicKey() } });
  } catch (err) {
    await staged.discard();
    throw err;
  }
  await staged.commit();
  await rm(join(root, 'config', 'credential'), { force: true });
}

async function ensureDevice(client: OutpostClient, name: string): Promise<void> {
  const match = /^(projects\/[^/]+\/regions\/[^/]+)\/devices\/[^/]+$/.exec(name);
  if (!match)
    throw new UsageError(`"${name}" is not a device name (projects/{project}/regions/{region}/devices/{device})`);
  try {
    await client.get<Device>(name, { view: 'NAME' });
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 'NOT_FOUND') throw err;
    await client.create(match[1]!, 'devices', { name });
  }
}
