import { randomBytes } from 'node:crypto';
import { mkdir, open } from 'node:fs/promises';
import { dirname } from 'node:path';

/** The agent's name for the recovery key it enrols (agent/src/os/unlock/unlock-keeper.ts). */
export const DEVICE_RECOVERY_KEY_FILE = 'recovery-key';

/** systemd's modhex alphabet: no letters that read alike across keyboard layouts */
const MODHEX = 'cbdefghijklnrtuv';

/**
 * A recovery key for an encrypted data partition: 256 random bits as 64 modhex characters in groups of 8 (the
 * shape of systemd-cryptenroll's recovery keys, typed at a console when the TPM does not unlock).
 */
export function newRecoveryKey(): string {
  const chars = [...randomBytes(32)].flatMap((byte) => [MODHEX[byte >> 4], MODHEX[byte & 15]]).join('');
  return chars.match(/.{8}/g)?.join('-') ?? chars;
}

/** Writes `key` to `file` with mode 0600; refuses to replace an existing file (an operator's other key). */
export async function writeNewSecretFile(file: string, key: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const handle = await open(file, 'wx', 0o600);
  try {
    await handle.writeFile(key);
    await handle.chmod(0o600);
    await handle.sync();
  } finally {
    await handle.close();
  }
}
