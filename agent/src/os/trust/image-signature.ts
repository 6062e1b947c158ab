import { verify } from 'node:crypto';
import type { TrustedKey } from './trusted-keys.js';

export type SignatureCheck = { ok: true; key: TrustedKey } | { ok: false; message: string };

/**
 * Checks an image's signature: ed25519 over the 32 raw bytes of its SHA-256 digest, base64, by any of the
 * trusted keys. `trustDirs` only names the folders in messages.
 */
export function checkImageSignature(
  version: string,
  digest: Buffer,
  signature: string | undefined,
  keys: readonly TrustedKey[],
  trustDirs: readonly string[],
): SignatureCheck {
  if (signature === undefined || signature.trim() === '') {
    return { ok: false, message: `the image of ${version} is not signed` };
  }
  if (keys.length === 0) {
    return {
      ok: false,
      message: `no trusted key (*.pub) in ${trustDirs.join(', ')}: cannot verify the signature of ${version}`,
    };
  }
  const bytes = Buffer.from(signature.trim(), 'base64');
  if (bytes.length !== 64) {
    return { ok: false, message: `the signature of ${version} is malformed (expected 64 bytes of base64)` };
  }
  for (const trusted of keys) {
    if (verify(null, digest, trusted.key, bytes)) return { ok: true, key: trusted };
  }
  return {
    ok: false,
    message: `the signature of ${version} does not verify against any of the ${keys.length} trusted key(s) in ${trustDirs.join(', ')}`,
  };
}
