import { createHash, createPublicKey, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateSigningKeyPair, publicKeyPemOf, signDigest, verifyDigest } from '../lib/signing.js';

const digestOf = (text: string): Buffer => createHash('sha256').update(text).digest();

describe('OS image signing', () => {
  it('produces PEM keys: PKCS#8 private, SPKI public', () => {
    const keys = generateSigningKeyPair();
    expect(keys.privateKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(keys.publicKeyPem).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
    expect(publicKeyPemOf(keys.privateKeyPem)).toBe(keys.publicKeyPem);
  });

  it('signs the 32-byte digest with a raw 64-byte Ed25519 signature any Ed25519 verifier accepts', () => {
    const keys = generateSigningKeyPair();
    const digest = digestOf('rootfs');
    const signature = signDigest(keys.privateKeyPem, digest);
    expect(signature).toHaveLength(64);
    expect(verify(null, digest, createPublicKey(keys.publicKeyPem), signature)).toBe(true);
    expect(verifyDigest(keys.publicKeyPem, digest, signature)).toBe(true);
  });

  it('rejects another image, another key and a truncated signature', () => {
    const keys = generateSigningKeyPair();
    const digest = digestOf('rootfs');
    const signature = signDigest(keys.privateKeyPem, digest);
    expect(verifyDigest(keys.publicKeyPem, digestOf('rootfs2'), signature)).toBe(false);
    expect(verifyDigest(generateSigningKeyPair().publicKeyPem, digest, signature)).toBe(false);
    expect(verifyDigest(keys.publicKeyPem, digest, signature.subarray(0, 63))).toBe(false);
  });

  it('refuses to sign anything but a SHA-256 digest', () => {
    const keys = generateSigningKeyPair();
    expect(() => signDigest(keys.privateKeyPem, Buffer.from('not a digest'))).toThrow(/32-byte/);
  });
});
