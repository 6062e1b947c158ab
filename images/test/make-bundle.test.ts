import { execFile } from 'node:child_process';
import { createHash, createPublicKey, verify } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const images = resolve(import.meta.dirname, '..');
const tsx = (script: string, args: string[]) => run('npx', ['--no-install', 'tsx', join(images, script), ...args]);

describe('make-bundle.ts and sign.ts (real child processes)', () => {
  let dir = '';
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes a manifest and a signature that verify against the generated public key', async () => {
    dir = mkdtempSync(join(tmpdir(), 'bundle-'));
    const image = Buffer.alloc(3 * 1024 * 1024 + 17, 7);
    writeFileSync(join(dir, 'rootfs.img'), image);
    await tsx('sign.ts', ['keygen', '--out', join(dir, 'keys')]);

    await tsx('make-bundle.ts', [
      ...['--dir', dir, '--version', '1.1.0', '--device-type', 'qemu-x86_64'],
      ...['--key', join(dir, 'keys', 'os-signing.key')],
    ]);

    const digest = createHash('sha256').update(image).digest();
    const manifest: unknown = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    const signature = readFileSync(join(dir, 'rootfs.img.sig'));
    expect(manifest).toEqual({
      version: '1.1.0',
      deviceType: 'qemu-x86_64',
      sha256: digest.toString('hex'),
      size: image.length,
      signature: signature.toString('base64'),
    });
    const publicKey = createPublicKey(readFileSync(join(dir, 'keys', 'os-signing.pub'), 'utf8'));
    expect(verify(null, digest, publicKey, signature)).toBe(true);

    const pub = join(dir, 'keys', 'os-signing.pub');
    await expect(tsx('sign.ts', ['verify', '--pub', pub, join(dir, 'rootfs.img')])).resolves.toMatchObject({
      stdout: 'valid\n',
    });
    writeFileSync(join(dir, 'rootfs.img'), Buffer.concat([image, Buffer.from('x')]));
    await expect(tsx('sign.ts', ['verify', '--pub', pub, join(dir, 'rootfs.img')])).rejects.toMatchObject({
      code: 1,
    });
  });
});
