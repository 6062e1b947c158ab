import { createHash, generateKeyPairSync } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkImageSignature } from '../../src/os/trust/image-signature.js';
import { loadTrustedKeys } from '../../src/os/trust/trusted-keys.js';
import { useTempDirs } from '../helpers/temp-dir.js';
import { signDigest, signingKey } from './helpers/os-images.js';

const tempDir = useTempDirs();
const content = Buffer.from('an OS image');
const digest = createHash('sha256').update(content).digest();

async function trustDir(files: Record<string, string>): Promise<string> {
  const dir = join(await tempDir(), 'trust');
  await mkdir(dir);
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

describe('trusted keys and image signatures', () => {
  it('loads every ed25519 *.pub of the folders, reporting files that are not', async () => {
    const first = signingKey();
    const second = signingKey();
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'pem' });
    const dir = await trustDir({
      'a.pub': first.publicPem,
      'b.pub': second.publicPem,
      'rsa.pub': rsa.toString(),
      'junk.pub': 'not a key',
      README: 'ignored',
    });
    const trusted = await loadTrustedKeys([dir, join(dir, 'missing')]);
    expect(trusted.keys.map((k) => k.source)).toEqual([join(dir, 'a.pub'), join(dir, 'b.pub')]);
    expect(trusted.problems).toEqual([
      expect.stringMatching(/junk\.pub is not a PEM public key/),
      expect.stringMatching(/rsa\.pub is a rsa key, not ed25519/),
    ]);
  });

  it('accepts a signature of the digest by any trusted key', async () => {
    const signer = signingKey();
    const dir = await trustDir({ 'other.pub': signingKey().publicPem, 'signer.pub': signer.publicPem });
    const { keys } = await loadTrustedKeys([dir]);
    const check = checkImageSignature('1.1.0', digest, signDigest(content, signer), keys, [dir]);
    expect(check).toMatchObject({ ok: true, key: { source: join(dir, 'signer.pub') } });
  });

  it.each([
    {
      name: 'a signature by an untrusted key',
      signature: () => signDigest(content, signingKey()),
      message: /^the signature of 1\.1\.0 does not verify against any of the 1 trusted key\(s\) in /,
    },
    {
      name: 'a signature of other content',
      signature: (trusted: ReturnType<typeof signingKey>) => signDigest(Buffer.from('other'), trusted),
      message: /does not verify/,
    },
    { name: 'no signature', signature: () => undefined, message: /^the image of 1\.1\.0 is not signed$/ },
    { name: 'an empty signature', signature: () => '', message: /is not signed/ },
    { name: 'a malformed signature', signature: () => 'c2hvcnQ=', message: /is malformed/ },
  ])('refuses $name', async ({ signature, message }) => {
    const trusted = signingKey();
    const dir = await trustDir({ 'trusted.pub': trusted.publicPem });
    const { keys } = await loadTrustedKeys([dir]);
    const check = checkImageSignature('1.1.0', digest, signature(trusted), keys, [dir]);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.message).toMatch(message);
  });

  it('refuses everything without a trusted key', async () => {
    const dir = await trustDir({});
    const check = checkImageSignature('1.1.0', digest, signDigest(content, signingKey()), [], [dir]);
    expect(check).toEqual({
      ok: false,
      message: `no trusted key (*.pub) in ${dir}: cannot verify the signature of 1.1.0`,
    });
  });
});
