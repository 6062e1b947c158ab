import { readFile, rm } from 'node:fs/promises';
import { Command, Option } from 'commander';
import { ApiError, deviceEnrollKeyPath, stageFileDeviceKey } from '@outpost/shared';
import { readCredential } from '../config/credential.js';
import { readDropletConfig } from '../config/droplet-config.js';
import { agentPaths } from '../config/paths.js';
import { httpBase } from './device-token.js';
import { postJson } from './post-json.js';

/**
 * `droplet enroll-key --device-root D`: moves a device provisioned with a bearer credential to a key pair. It
 * makes the key pair, registers its public key with the credential (used this one last time: the server revokes
 * it), then puts the key pair in place and deletes the credential file. A running agent reconnects with the key.
 * Returns the exit code.
 */
export async function enrollKeyCommand(argv: readonly string[]): Promise<number> {
  const command = new Command('droplet enroll-key')
    .description('move this device from its bearer credential to an ed25519 key pair (the credential is revoked)')
    .addOption(
      new Option('--device-root <dir>', 'persistent root of the device (config/ and data/)')
        .default('/outpost')
        .env('DROPLET_DEVICE_ROOT'),
    )
    .option('--ca-file <pem>', 'CA certificates to trust for an https server, instead of the system ones')
    .exitOverride();
  let opts: { deviceRoot: string; caFile?: string };
  try {
    opts = command.parse(argv, { from: 'user' }).opts<{ deviceRoot: string; caFile?: string }>();
  } catch (err) {
    return (err as { exitCode?: number }).exitCode ?? 2;
  }
  const paths = agentPaths(opts.deviceRoot);
  const [config, credential] = await Promise.all([
    readDropletConfig(paths.configFile),
    readCredential(paths.credentialFile),
  ]);
  if (config === undefined || credential === undefined) {
    process.stderr.write(
      `droplet enroll-key: ${config === undefined ? paths.configFile : paths.credentialFile} is missing: ` +
        'only a provisioned device with a bearer credential can enroll a key\n',
    );
    return 1;
  }
  const ca = opts.caFile === undefined ? undefined : await readFile(opts.caFile, 'utf8');
  const staged = await stageFileDeviceKey(paths.identityDir);
  try {
    await postJson(
      new URL(deviceEnrollKeyPath(config.deviceName), httpBase(config.server)),
      { publicKey: await staged.key.publicKey() },
      { authorization: `Bearer ${credential}`, ...(ca === undefined ? {} : { ca }) },
    );
  } catch (err) {
    await staged.discard();
    const message = err instanceof ApiError ? `${err.status}: ${err.message}` : String(err);
    process.stderr.write(`droplet enroll-key: the server refused the key: ${message}\n`);
    return 1;
  }
  await staged.commit();
  await rm(paths.credentialFile, { force: true });
  process.stdout.write(
    `${config.deviceName} now authenticates with the key pair in ${paths.identityDir}; its credential is revoked\n`,
  );
  return 0;
}
