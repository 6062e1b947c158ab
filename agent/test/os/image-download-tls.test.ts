import { readFileSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fileSlotTarget } from '../../src/os/boot/slot-target.js';
import { downloadImage } from '../../src/os/download/image-download.js';
import { createTestCa, issueServerCertificate } from '../../../test/integration/helpers/test-certificates.js';
import { useTempDirs } from '../helpers/temp-dir.js';
import { signingKey, testImage } from './helpers/os-images.js';

const tempDir = useTempDirs();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe('downloading an image over https (--ca-file)', () => {
  it('trusts the CA given, and without it fails on the certificate (retrying) and writes nothing', async () => {
    const dir = await tempDir();
    const ca = createTestCa(dir);
    const certificate = issueServerCertificate(ca, dir, 'artifacts');
    const { content, image } = testImage('1.1.0', 256 * 1024, signingKey());
    const server = createServer(
      { cert: readFileSync(certificate.certFile), key: readFileSync(certificate.keyFile) },
      (_req, res) => {
        res.writeHead(200, { 'content-length': content.length, etag: `"${image.sha256}"` });
        res.end(content);
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => server.close(() => resolve())));
    const url = new URL(image.url, `https://127.0.0.1:${(server.address() as AddressInfo).port}`);
    await mkdir(join(dir, 'slots'));
    const slotPath = join(dir, 'slots', 'B.img');
    const download = { url, authorization: async () => 'Bearer c', image, resumeFrom: 0 };

    const aborted = new AbortController();
    const failures: string[] = [];
    const untrusted = downloadImage({
      ...download,
      target: fileSlotTarget('B', slotPath, 1024 * 1024),
      backoff: { baseMs: 10, capMs: 10 },
      signal: aborted.signal,
      onRetry: (err) => {
        failures.push(err.message);
        aborted.abort(new Error('seen enough'));
      },
    });
    await expect(untrusted).rejects.toThrow('seen enough');
    expect(failures).toEqual(['unable to verify the first certificate']);
    expect((await readFile(slotPath)).length).toBe(0);

    const digest = await downloadImage({
      ...download,
      target: fileSlotTarget('B', slotPath, 1024 * 1024),
      ca: ca.pem,
    });
    expect(digest.toString('hex')).toBe(image.sha256);
    expect((await readFile(slotPath)).equals(content)).toBe(true);
  });
});
