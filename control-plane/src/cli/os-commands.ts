import { createHash, createPrivateKey, generateKeyPairSync, sign } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { ApiError, deviceTypeDefinition, osVersionDefinition, osVersionId, writeFileAtomic } from '@outpost/shared';
import type { Command } from 'commander';
import { connectionOf } from './connection.js';
import { fetchTrusting } from './trusted-ca.js';
import type { ContextFactory } from './context.js';
import { progressBar } from './progress.js';
import { registerResourceCommands } from './resource-commands.js';
import { UsageError } from './usage-error.js';
import { readFile } from 'node:fs/promises';

interface PublishOptions {
  deviceType: string;
  version: string;
  image: string;
  signingKey: string;
  minimumPreviousVersion?: string;
  channel?: string;
}

/** `outpost os ...`: signing keys, publishing OS versions, and the catalog's resources. */
export function registerOsCommands(program: Command, ctxFactory: ContextFactory): Command {
  const group = program.command('os').description('OS images: device types, versions, signing and publishing');
  registerResourceCommands(group, [deviceTypeDefinition, osVersionDefinition], ctxFactory, {
    columns: {
      osVersions: [
        { header: 'NAME', path: 'name' },
        { header: 'VERSION', path: 'version' },
        { header: 'DEVICE TYPE', path: 'deviceType' },
        { header: 'MIN PREVIOUS', path: 'minimumPreviousVersion' },
        { header: 'CHANNEL', path: 'channel' },
        { header: 'SIZE', path: 'artifact.size' },
      ],
    },
  });

  group
    .command('keygen <prefix>')
    .description(
      'write an ed25519 signing key pair: <prefix>.key (private, mode 0600) and <prefix>.pub (put it in {device_root}/config/trust/)',
    )
    .action(async (prefix: string, _opts: unknown, command: Command) => {
      const { privateKey, publicKey } = generateKeyPairSync('ed25519');
      await writeFileAtomic(`${prefix}.key`, privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, 0o600);
      await writeFileAtomic(`${prefix}.pub`, publicKey.export({ type: 'spki', format: 'pem' }) as string, 0o644);
      ctxFactory(command).print(`wrote ${prefix}.key and ${prefix}.pub`);
    });

  group
    .command('publish')
    .description('sign and upload an OS image, and publish it as a version of a device type')
    .requiredOption('--device-type <id>', 'device type id (created when missing)')
    .requiredOption('--version <version>', 'semantic version, e.g. 1.1.0')
    .requiredOption('--image <file>', 'the root filesystem image written into a slot')
    .requiredOption('--signing-key <file>', 'private signing key from os keygen (written --key after "publish")')
    .option('--minimum-previous-version <version>', 'devices must run at least this version to install it')
    .option('--channel <channel>', 'normal or beta')
    .action(async (opts: PublishOptions, command: Command) => {
      const ctx = ctxFactory(command);
      const channel = opts.channel === undefined ? undefined : opts.channel.toUpperCase();
      if (channel !== undefined && channel !== 'NORMAL' && channel !== 'BETA') {
        throw new UsageError('--channel is normal or beta');
      }
      const key = await loadPrivateKey(opts.signingKey);
      const { size } = await stat(opts.image).catch(() => {
        throw new UsageError(`cannot read image ${opts.image}`);
      });
      const sha256 = await hashFile(opts.image, size);
      const signature = sign(null, Buffer.from(sha256, 'hex'), key).toString('base64');

      const deviceType = `deviceTypes/${opts.deviceType}`;
      try {
        await ctx.client.get(deviceType);
      } catch (err) {
        if (!(err instanceof ApiError && err.status === 'NOT_FOUND')) throw err;
        await ctx.client.create('', 'deviceTypes', { name: deviceType, displayName: opts.deviceType });
        ctx.note(`created ${deviceType}`);
      }
      await upload(command, opts.image, sha256, size);
      const created = await ctx.client.create('', 'osVersions', {
        name: `osVersions/${osVersionId(opts.deviceType, opts.version)}`,
        version: opts.version,
        deviceType,
        ...(opts.minimumPreviousVersion ? { minimumPreviousVersion: opts.minimumPreviousVersion } : {}),
        ...(channel ? { channel } : {}),
        artifact: { sha256, size },
        signature,
      });
      ctx.output(created);
    });

  group
    .command('gc')
    .description(
      'delete the stored artifacts no OS version refers to (deleting a version deletes its artifact already)',
    )
    .option(
      '--min-age <seconds>',
      'keep artifacts stored less than this long ago: uploads whose version may be about to be published (default 3600)',
      wholeNumber,
    )
    .action(async (opts: { minAge?: number }, command: Command) => {
      const ctx = ctxFactory(command);
      const result = await ctx.client.request<{ removed: { sha256: string; size: number }[]; freedBytes: number }>(
        'POST',
        '/v1/artifacts:collectGarbage',
        { body: opts.minAge === undefined ? {} : { minAgeSeconds: opts.minAge } },
      );
      if (ctx.format !== 'table') return ctx.output(result);
      for (const artifact of result.removed) ctx.print(`removed ${artifact.sha256} (${artifact.size} bytes)`);
      ctx.note(`removed ${result.removed.length} artifacts, freed ${result.freedBytes} bytes`);
    });
  return group;
}

function wholeNumber(value: string): number {
  if (!/^\d+$/.test(value)) throw new UsageError(`"${value}" is not a whole number of seconds`);
  return Number(value);
}

async function loadPrivateKey(file: string): Promise<ReturnType<typeof createPrivateKey>> {
  let pem: string;
  try {
    pem = await readFile(file, 'utf8');
  } catch {
    throw new UsageError(`cannot read signing key ${file}`);
  }
  try {
    const key = createPrivateKey(pem);
    if (key.asymmetricKeyType !== 'ed25519') throw new UsageError(`${file} is not an ed25519 key`);
    return key;
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`${file} is not a PEM private key`);
  }
}

async function hashFile(path: string, size: number): Promise<string> {
  const hash = createHash('sha256');
  const progress = progressBar('hashing', size);
  let done = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) {
    hash.update(chunk as Buffer);
    done += (chunk as Buffer).length;
    progress.update(done);
  }
  progress.stop();
  return hash.digest('hex');
}

/** Streams the image to PUT /v1/artifacts (skipped when the server already has it), with a progress bar. */
async function upload(command: Command, path: string, sha256: string, size: number): Promise<void> {
  const { server, apiKey, ca } = connectionOf(command);
  const fetch = ca === undefined ? globalThis.fetch : fetchTrusting(ca);
  const headers: Record<string, string> = apiKey ? { authorization: `Bearer ${apiKey}` } : {};
  const head = await fetch(`${server}/v1/artifacts/${sha256}`, { method: 'HEAD', headers });
  if (head.ok) return;
  const progress = progressBar('uploading', size);
  let sent = 0;
  const source = createReadStream(path, { highWaterMark: 1 << 20 });
  source.on('data', (chunk) => {
    sent += (chunk as Buffer).length;
    progress.update(sent);
  });
  const res = await fetch(`${server}/v1/artifacts`, {
    method: 'PUT',
    headers: {
      ...headers,
      'content-type': 'application/octet-stream',
      'x-content-sha256': sha256,
      'content-length': String(size),
    },
    body: Readable.toWeb(source) as ReadableStream,
    duplex: 'half',
  } as RequestInit);
  progress.stop();
  if (!res.ok) throw ApiError.fromBody(await res.json().catch(() => null), res.status);
}
