import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { extract } from 'tar';
import {
  TreeWriter,
  encodeChunkPrefix,
  encodeDir,
  encodeFileStart,
  encodeTree,
  placeEntry,
  prepareTreeSource,
  writeTree,
} from '@outpost/shared';
import type { Channel } from '@outpost/shared';
import { agentPaths } from '../../src/config/paths.js';
import type { SystemFactsSource } from '../../src/metrics/system-facts.js';
import { startChannelServices } from '../../src/transfer/channel-services.js';
import { deviceChannelServices } from '../../src/transfer/device-channel-services.js';
import { partFilesDir } from '../../src/transfer/part-files.js';
import { useTempDirs } from '../helpers/temp-dir.js';
import { eventually } from '../helpers/eventually.js';
import { readChannel, startChannelPeer } from './channel-peer.js';

const tempDir = useTempDirs();
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const FACTS: SystemFactsSource = {
  deviceFacts: async () => ({ interfaces: {} }),
  usageFacts: async () => ({ uptimeSeconds: 1, load1: 0 }),
};

async function setup() {
  const deviceRoot = await tempDir();
  const paths = agentPaths(deviceRoot);
  mkdirSync(paths.configDir, { recursive: true });
  writeFileSync(
    paths.configFile,
    JSON.stringify({ server: 'http://x', deviceName: 'd', provisioningToken: 'tok-123' }),
  );
  writeFileSync(paths.credentialFile, 'super-secret-credential\n');
  const peer = await startChannelPeer({ windowBytes: 256 * 1024, ackEveryBytes: 64 * 1024, maxFrameBytes: 32 * 1024 });
  const services = startChannelServices({
    link: peer.link,
    logger: peer.log.logger,
    services: deviceChannelServices({
      paths,
      agentVersion: '1.0.0',
      bootId: 'boot',
      deviceName: 'projects/p/regions/r/devices/d',
      facts: FACTS,
      logger: peer.log.logger,
    }),
  });
  cleanups.push(() => peer.close());
  cleanups.push(() => services.stop());
  await peer.connect();
  return { peer, services, deviceRoot, local: await tempDir() };
}

async function upload(
  peer: Awaited<ReturnType<typeof setup>>['peer'],
  local: string,
  remote: string,
  recursive = false,
) {
  const source = await prepareTreeSource(local, recursive);
  const { channel } = await peer.open('transfer.upload', { path: remote });
  for await (const piece of encodeTree(source)) await channel.write(piece);
  await channel.end();
  return JSON.parse((await readChannel(channel)).toString('utf8')) as Record<string, unknown>;
}

async function download(channel: Channel, destination: string, into: boolean) {
  return writeTree(channel, new TreeWriter({ placeRoot: async (root) => placeEntry(destination, root.name, into) }));
}

describe('transfer services on the agent', () => {
  it('uploads a file into a directory (trailing slash) or under a new name, mode and bytes intact', async () => {
    const { peer, deviceRoot, local } = await setup();
    const file = join(local, 'report.bin');
    writeFileSync(file, randomBytes(700_000));
    chmodSync(file, 0o604);
    const into = join(deviceRoot, 'inbox') + '/';
    expect(await upload(peer, file, into)).toMatchObject({
      files: 1,
      bytes: 700_000,
      destination: join(into, 'report.bin'),
    });
    expect(readFileSync(join(into, 'report.bin')).equals(readFileSync(file))).toBe(true);
    expect(statSync(join(into, 'report.bin')).mode & 0o777).toBe(0o604);

    const renamed = join(deviceRoot, 'inbox', 'renamed.bin');
    await upload(peer, file, renamed);
    expect(readFileSync(renamed).equals(readFileSync(file))).toBe(true);
    // a file sent to an existing directory without a slash goes into it, as with cp and scp
    await upload(peer, file, join(deviceRoot, 'inbox'));
    expect(readdirSync(join(deviceRoot, 'inbox')).sort()).toEqual(['renamed.bin', 'report.bin']);
  });

  it('uploads a tree: a trailing slash creates the directory itself, none copies only its contents', async () => {
    const { peer, deviceRoot, local } = await setup();
    mkdirSync(join(local, 'site', 'css'), { recursive: true });
    writeFileSync(join(local, 'site', 'index.html'), '<p>hi</p>');
    writeFileSync(join(local, 'site', 'css', 'a.css'), 'p{}');
    await upload(peer, join(local, 'site'), `${deviceRoot}/www/`, true);
    expect(readFileSync(join(deviceRoot, 'www', 'site', 'css', 'a.css'), 'utf8')).toBe('p{}');
    await upload(peer, join(local, 'site'), `${deviceRoot}/srv`, true);
    expect(readdirSync(join(deviceRoot, 'srv')).sort()).toEqual(['css', 'index.html']);
  });

  it('refuses a relative upload path before any byte flows', async () => {
    const { peer } = await setup();
    await expect(peer.open('transfer.upload', { path: 'relative/dir/' })).rejects.toMatchObject({
      status: 'INVALID_ARGUMENT',
      message: expect.stringMatching(/must be absolute/),
    });
  });

  it('refuses an entry that would escape its destination, writing nothing', async () => {
    const { peer, deviceRoot } = await setup();
    const { channel } = await peer.open('transfer.upload', { path: `${deviceRoot}/box/` });
    await channel.write(encodeDir('evil', 0o755));
    await channel.write(encodeFileStart('evil/../../escaped', 0o644, 1));
    await channel.end();
    await expect(readChannel(channel)).rejects.toMatchObject({
      status: 'INVALID_ARGUMENT',
      message: expect.stringMatching(/refused transfer entry/),
    });
    expect(existsSync(join(deviceRoot, 'escaped'))).toBe(false);
  });

  it('refuses to write through a symlinked directory below the destination, with or without its D record', async () => {
    const { peer, deviceRoot } = await setup();
    const elsewhere = join(deviceRoot, 'elsewhere');
    mkdirSync(elsewhere);
    mkdirSync(join(deviceRoot, 'box', 'site'), { recursive: true });
    symlinkSync(elsewhere, join(deviceRoot, 'box', 'site', 'conf'));
    for (const entries of [
      [encodeDir('site', 0o755), encodeFileStart('site/conf/planted', 0o644, 1)],
      [encodeDir('site', 0o755), encodeDir('site/conf', 0o755), encodeFileStart('site/conf/planted', 0o644, 1)],
      [encodeDir('site', 0o755), encodeDir('site/conf/deeper', 0o777)],
    ]) {
      const { channel } = await peer.open('transfer.upload', { path: `${deviceRoot}/box/` });
      for (const entry of entries) await channel.write(entry);
      await channel.end();
      await expect(readChannel(channel)).rejects.toMatchObject({
        status: 'FAILED_PRECONDITION',
        message: `${join(deviceRoot, 'box', 'site', 'conf')} is a symbolic link: a transfer never writes through one`,
      });
    }
    expect(readdirSync(elsewhere)).toEqual([]);
    expect(readdirSync(join(deviceRoot, 'box', 'site'))).toEqual(['conf']);
  });

  it('an interrupted upload (aborted, or the link lost) leaves no partial file behind', async () => {
    const { peer, deviceRoot } = await setup();
    const box = join(deviceRoot, 'box');
    for (const interrupt of ['abort', 'cut'] as const) {
      const { channel } = await peer.open('transfer.upload', { path: `${box}/` });
      await channel.write(encodeFileStart('big.bin', 0o644, 10_000_000));
      await channel.write(encodeChunkPrefix(10_000_000));
      await channel.write(randomBytes(1_000_000));
      await eventually(() => expect(readdirSync(box).some((n) => n.endsWith('.outpost-part'))).toBe(true));
      if (interrupt === 'abort') channel.abort({ status: 'ABORTED', message: 'client went away' });
      else peer.cut();
      await eventually(() => expect(readdirSync(box)).toEqual([]));
      // nothing is left for the next start to clean up either
      expect(readdirSync(partFilesDir(join(deviceRoot, 'data')))).toEqual([]);
      await peer.connect();
    }
  });

  it('downloads a file, or a tree with recursive, as a transfer stream', async () => {
    const { peer, deviceRoot, local } = await setup();
    mkdirSync(join(deviceRoot, 'data', 'logs'), { recursive: true });
    writeFileSync(join(deviceRoot, 'data', 'logs', 'a.log'), 'line\n');
    const opened = await peer.open('transfer.download', { path: join(deviceRoot, 'data', 'logs', 'a.log') });
    expect(opened.info).toEqual({ kind: 'file', name: 'a.log', size: 5 });
    await download(opened.channel, join(local, 'copy.log'), false);
    expect(readFileSync(join(local, 'copy.log'), 'utf8')).toBe('line\n');

    // a relative device path is relative to {device_root}
    const tree = await peer.open('transfer.download', { path: 'data/logs', recursive: true });
    expect(await download(tree.channel, local, true)).toMatchObject({ files: 1, destination: join(local, 'logs') });
    expect(readFileSync(join(local, 'logs', 'a.log'), 'utf8')).toBe('line\n');
  });

  it('refuses downloads of directories without recursive, special files and missing paths', async () => {
    const { peer, deviceRoot } = await setup();
    execFileSync('mkfifo', [join(deviceRoot, 'fifo')]);
    await expect(peer.open('transfer.download', { path: deviceRoot })).rejects.toMatchObject({
      status: 'FAILED_PRECONDITION',
      message: expect.stringMatching(/is a directory/),
    });
    await expect(peer.open('transfer.download', { path: join(deviceRoot, 'fifo') })).rejects.toThrow(
      /not a regular file/,
    );
    await expect(peer.open('transfer.download', { path: '/nonexistent/file' })).rejects.toMatchObject({
      status: 'NOT_FOUND',
    });
    await expect(peer.open('transfer.upload', { nope: 1 })).rejects.toMatchObject({ status: 'INVALID_ARGUMENT' });
  });

  it('streams a debug bundle as a tar.gz with state and configuration, secrets redacted', async () => {
    const { peer, local } = await setup();
    const { channel } = await peer.open('debug.bundle', {});
    const archive = join(local, 'bundle.tar.gz');
    writeFileSync(archive, await readChannel(channel));
    const out = join(local, 'out');
    mkdirSync(out);
    await extract({ file: archive, cwd: out });
    const root = join(out, 'outpost-debug-d');
    expect(JSON.parse(readFileSync(join(root, 'bundle.json'), 'utf8'))).toMatchObject({ agentVersion: '1.0.0' });
    const config = JSON.parse(readFileSync(join(root, 'config', 'droplet.json'), 'utf8')) as Record<string, unknown>;
    expect(config).toMatchObject({ server: 'http://x', provisioningToken: '[redacted]' });
    expect(JSON.parse(readFileSync(join(root, 'system', 'facts.json'), 'utf8'))).toHaveProperty('usage');
    expect(readFileSync(join(root, 'notes.txt'), 'utf8')).toMatch(/agent log/);
    const files = readdirSync(out, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) {
      expect(readFileSync(join(file.parentPath, file.name), 'utf8')).not.toContain('super-secret-credential');
    }
  });
});
