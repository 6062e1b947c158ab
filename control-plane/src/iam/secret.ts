import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

const SECRET_PREFIX = 'opk_';
const SECRET_RANDOM_BYTES = 32;
const KEY_ID_LENGTH = 12;
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
const ALPHANUMERIC = `${LETTERS}0123456789`;

/** A fresh key id: a lowercase letter then lowercase letters and digits (never '_', which delimits secrets). */
export function newKeyId(): string {
  let id = LETTERS[randomInt(LETTERS.length)] ?? 'k';
  while (id.length < KEY_ID_LENGTH) id += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)] ?? '0';
  return id;
}

/** `opk_<keyId>_<random>` with 32 random bytes in base64url. */
export const newSecret = (keyId: string): string =>
  `${SECRET_PREFIX}${keyId}_${randomBytes(SECRET_RANDOM_BYTES).toString('base64url')}`;

/** The key id a generated secret names, or undefined for any other string. */
export function keyIdOfSecret(secret: string): string | undefined {
  if (!secret.startsWith(SECRET_PREFIX)) return undefined;
  const rest = secret.slice(SECRET_PREFIX.length);
  const end = rest.indexOf('_');
  return end > 0 ? rest.slice(0, end) : undefined;
}

export const hashSecret = (secret: string): Buffer => createHash('sha256').update(secret, 'utf8').digest();

/** Constant-time comparison of a presented secret with a stored hash. */
export function secretMatches(secret: string, storedHash: Uint8Array): boolean {
  const hash = hashSecret(secret);
  return hash.length === storedHash.length && timingSafeEqual(hash, storedHash);
}
