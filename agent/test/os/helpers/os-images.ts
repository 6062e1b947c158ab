import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { OsImage } from '@outpost/shared';

export interface SigningKey {
  privateKey: KeyObject;
  /** PEM SPKI, as a trusted-key file holds it */
  publicPem: string;
}

export function signingKey(): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { privateKey, publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
}

/** Writes the key as `{device_root}/config/trust/<name>.pub`. */
export async function trustKey(deviceRoot: string, key: SigningKey, name = 'os-signing'): Promise<string> {
  const dir = join(deviceRoot, 'config', 'trust');
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, `${name}.pub`), key.publicPem);
  return dir;
}

export interface TestImage {
  content: Buffer;
  image: OsImage;
}

/** ed25519 over the 32 raw bytes of the SHA-256 digest, base64 (the images/ signing scheme). */
export const signDigest = (content: Buffer, key: SigningKey): string =>
  sign(null, createHash('sha256').update(content).digest(), key.privateKey).toString('base64');

/** A random image of `size` bytes (optionally starting with `prefix`), signed by `key`. */
export function testImage(version: string, size: number, key: SigningKey, prefix = ''): TestImage {
  const content = Buffer.concat([Buffer.from(prefix, 'latin1'), randomBytes(Math.max(0, size - prefix.length))]);
  const sha256 = createHash('sha256').update(content).digest('hex');
  return {
    content,
    image: {
      version,
      deviceType: 'simulated',
      sha256,
      size: content.length,
      signature: signDigest(content, key),
      url: `/v1/artifacts/${sha256}`,
    },
  };
}
