import { createHash } from 'node:crypto';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fileSlotTarget, partitionSlotTarget } from '../../src/os/boot/slot-target.js';
import { ArtifactError } from '../../src/os/download/artifact-error.js';
import { downloadImage } from '../../src/os/download/image-download.js';
import type { ImageDownload } from '../../src/os/download/image-download.js';
import { useTempDirs } from '../helpers/temp-dir.js';
import { ArtifactServer } from './helpers/artifact-server.js';
import { signingKey, testImage } from './helpers/os-images.js';

const tempDir = useTempDirs();
const servers: ArtifactServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const MiB = 1024 * 1024;
const key = signingKey();
const fastRetries = { baseMs: 10, capMs: 50 };

async function setup(size = 3 * MiB) {
  const server = await ArtifactServer.start();
  servers.push(server);
  const { content, image } = testImage('1.1.0', size, key);
  server.put(image.sha256, content);
  const dir = await tempDir();
  const slotPath = join(dir, 'slots', 'B.img');
  await mkdir(join(dir, 'slots'));
  const checkpoints: number[] = [];
  const download = (overrides: Partial<ImageDownload> = {}): Promise<Buffer> =>
    downloadImage({
      url: new URL(image.url, server.url),
      authorization: async () => 'Bearer device-credential',
      image,
      target: fileSlotTarget('B', slotPath, 64 * MiB),
      resumeFrom: 0,
      backoff: fastRetries,
      checkpointIntervalMs: 5,
      onCheckpoint: async (bytes) => {
        checkpoints.push(bytes);
      },
      ...overrides,
    });
  return { server, content, image, dir, slotPath, checkpoints, download };
}

const sha256 = (content: Buffer): string => createHash('sha256').update(content).digest('hex');

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

describe('downloading an image into a slot', () => {
  it('streams it, hashing, with the device credential, and checkpoints its progress', async () => {
    const { server, content, image, slotPath, checkpoints, download } = await setup();
    const progress: number[] = [];
    const digest = await download({ onProgress: (bytes) => progress.push(bytes) });
    expect(digest.toString('hex')).toBe(image.sha256);
    expect((await readFile(slotPath)).equals(content)).toBe(true);
    expect(server.requests).toEqual([{ path: image.url, authorization: 'Bearer device-credential', status: 200 }]);
    expect(progress.at(-1)).toBe(content.length);
    expect(checkpoints.at(-1)).toBe(content.length);
    expect([...checkpoints].sort((a, b) => a - b)).toEqual(checkpoints);
  });

  it('resumes with Range and If-Range after the server drops the connection', async () => {
    const { server, content, image, slotPath, download } = await setup();
    server.fault({ dropAfter: MiB });
    server.fault({ dropAfter: MiB / 2 });
    const retries: string[] = [];
    const digest = await download({ onRetry: (err) => retries.push(err.message) });
    expect(digest.toString('hex')).toBe(image.sha256);
    expect((await readFile(slotPath)).equals(content)).toBe(true);
    expect(retries).toHaveLength(2);
    const [first, second, third] = server.requests;
    expect(first?.range).toBeUndefined();
    expect(second).toMatchObject({ status: 206, ifRange: `"${image.sha256}"` });
    expect(second?.range).toMatch(/^bytes=\d+-$/);
    expect(third?.status).toBe(206);
    // nothing was downloaded twice beyond what was in flight when the connection dropped
    expect(server.bytesServed).toBeLessThan(content.length + MiB);
  });

  it('resumes after an agent restart from the persisted offset, re-hashing the written prefix', async () => {
    const { server, content, image, slotPath, checkpoints, download } = await setup();
    server.fault({ dropAfter: 2 * MiB });
    const stop = new AbortController();
    const error = await rejection(
      download({ signal: stop.signal, onRetry: () => stop.abort(new Error('agent killed')) }),
    );
    expect(error.message).toBe('agent killed');
    const persisted = Math.max(...checkpoints);
    expect(persisted).toBeGreaterThan(0);
    expect(persisted).toBeLessThanOrEqual(2 * MiB);
    expect((await stat(slotPath)).size).toBeGreaterThanOrEqual(persisted);

    server.requests.length = 0;
    const digest = await download({ resumeFrom: persisted });
    expect(digest.toString('hex')).toBe(image.sha256);
    expect((await readFile(slotPath)).equals(content)).toBe(true);
    expect(server.requests).toEqual([
      expect.objectContaining({ range: `bytes=${persisted}-`, ifRange: `"${image.sha256}"`, status: 206 }),
    ]);
  });

  it('starts over when the server answers a resumed request whole', async () => {
    const { content, image, slotPath, server, download } = await setup();
    await writeFile(slotPath, Buffer.alloc(MiB, 7)); // a prefix that is not this image's
    server.fault({ ignoreRange: true });
    const digest = await download({ resumeFrom: MiB });
    expect(digest.toString('hex')).toBe(image.sha256);
    expect((await readFile(slotPath)).equals(content)).toBe(true);
    expect(server.requests).toEqual([expect.objectContaining({ range: `bytes=${MiB}-`, status: 200 })]);
  });

  it('retries server errors, and the server is asked again', async () => {
    const { server, image, download } = await setup(MiB);
    server.fault({ status: 503 });
    server.fault({ status: 500 });
    const digest = await download();
    expect(digest.toString('hex')).toBe(image.sha256);
    expect(server.requests.map((r) => r.status)).toEqual([503, 500, 200]);
  });

  it('writes a partition in place (a fixed-size file standing in for one), not truncating it', async () => {
    const { content, image, dir, download } = await setup(MiB);
    const partition = join(dir, 'root_b');
    await writeFile(partition, Buffer.alloc(2 * MiB, 0xee));
    const digest = await download({ target: partitionSlotTarget('B', partition) });
    expect(digest.toString('hex')).toBe(image.sha256);
    const written = await readFile(partition);
    expect(written.length).toBe(2 * MiB);
    expect(written.subarray(0, MiB).equals(content)).toBe(true);
  });

  it('returns the digest of what it received, for the caller to compare', async () => {
    const { server, image, download } = await setup(MiB);
    const other = Buffer.alloc(MiB, 1);
    server.put(image.sha256, other);
    expect((await download()).toString('hex')).toBe(sha256(other));
  });

  describe('refuses unusable artifacts with ArtifactError, touching only the spare slot', () => {
    it('larger than the slot: before any request', async () => {
      const { server, dir, download } = await setup(2 * MiB);
      const error = await rejection(download({ target: fileSlotTarget('B', join(dir, 'slots', 'B.img'), MiB) }));
      expect(error).toBeInstanceOf(ArtifactError);
      expect(error.message).toBe(`the image (${2 * MiB} bytes) is larger than slot B (${MiB} bytes)`);
      expect(server.requests).toEqual([]);
    });

    it('not enough free space: before any request', async () => {
      const { server, download } = await setup(2 * MiB);
      const error = await rejection(download({ freeSpace: async () => MiB }));
      expect(error).toBeInstanceOf(ArtifactError);
      expect(error.message).toMatch(
        /^not enough free space for the image \(2097152 bytes\) in slot B: 2097152 more bytes needed, 1048576 free$/,
      );
      expect(server.requests).toEqual([]);
    });

    it('truncated: the server has fewer bytes than the image', async () => {
      const { server, content, image, download } = await setup(2 * MiB);
      server.put(image.sha256, content.subarray(0, MiB));
      const error = await rejection(download());
      expect(error).toBeInstanceOf(ArtifactError);
      expect(error.message).toBe(`the artifact is truncated: the server has ${MiB} of the image's ${2 * MiB} bytes`);
    });

    it('truncated, found out when resuming', async () => {
      const { server, content, image, slotPath, download } = await setup(2 * MiB);
      await writeFile(slotPath, content.subarray(0, MiB + 10));
      server.put(image.sha256, content.subarray(0, MiB));
      const error = await rejection(download({ resumeFrom: MiB + 10 }));
      expect(error).toBeInstanceOf(ArtifactError);
      expect(error.message).toMatch(/^the artifact is truncated/);
    });

    it('larger than declared', async () => {
      const { server, content, image, download } = await setup(MiB);
      server.put(image.sha256, Buffer.concat([content, Buffer.alloc(10)]));
      const error = await rejection(download());
      expect(error).toBeInstanceOf(ArtifactError);
      expect(error.message).toBe(`the artifact (${MiB + 10} bytes) is larger than the image's declared ${MiB} bytes`);
    });

    it('missing on the server', async () => {
      const { image, server, download } = await setup(MiB);
      const error = await rejection(download({ url: new URL(`/v1/artifacts/${'0'.repeat(64)}`, server.url) }));
      expect(error).toBeInstanceOf(ArtifactError);
      expect(error.message).toMatch(/^the server has no artifact at \/v1\/artifacts\/0+ \(HTTP 404: no artifact 0+\)$/);
      expect(image.sha256).not.toBe('0'.repeat(64));
    });
  });
});
