import { createHash, randomBytes } from 'node:crypto';

/** A fresh secret with a readable prefix: `<prefix>_<43 base64url chars>` (256 bits). */
export const newSecret = (prefix: string): string => `${prefix}_${randomBytes(32).toString('base64url')}`;

/** Secrets are stored as their sha256; a secret has full entropy, so no salt or slow hash is needed. */
export const hashSecret = (secret: string): Buffer => createHash('sha256').update(secret, 'utf8').digest();
