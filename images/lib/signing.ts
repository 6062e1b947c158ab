// Ed25519 signing of OS images. The signed message is the 32-byte SHA-256 digest of rootfs.img,
// so a verifier that already hashed the image while streaming it never reads it twice.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import { createReadStream } from 'node:fs';

export interface SigningKeyPair {
  /** PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`) */
  privateKeyPem: string;
  /** SPKI PEM (`-----BEGIN PUBLIC KEY-----`) */
  publicKeyPem: string;
}

export function generateSigningKeyPair(): SigningKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

export function publicKeyPemOf(privateKeyPem: string): string {
  return createPublicKey(createPrivateKey(privateKeyPem)).export({ type: 'spki', format: 'pem' }).toString();
}

/** The raw 64-byte Ed25519 signature over `digest`. */
export function signDigest(privateKeyPem: string, digest: Buffer): Buffer {
  assertDigest(digest);
  return sign(null, digest, createPrivateKey(privateKeyPem));
}

export function verifyDigest(publicKeyPem: string, digest: Buffer, signature: Buffer): boolean {
  assertDigest(digest);
  return signature.length === 64 && verify(null, digest, createPublicKey(publicKeyPem), signature);
}

export async function sha256OfFile(path: string): Promise<Buffer> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest();
}

function assertDigest(digest: Buffer): void {
  if (digest.length !== 32) throw new Error(`expected a 32-byte SHA-256 digest, got ${digest.length} bytes`);
}
