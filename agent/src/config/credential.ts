import { readFile } from 'node:fs/promises';
import { isNotFound, writeFileAtomic } from '@outpost/shared';

/** The device credential, or undefined when the file does not exist or is empty. */
export async function readCredential(path: string): Promise<string | undefined> {
  try {
    const credential = (await readFile(path, 'utf8')).trim();
    return credential === '' ? undefined : credential;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** Only root (the agent) may read the credential. */
export const writeCredential = (path: string, credential: string): Promise<void> =>
  writeFileAtomic(path, `${credential}\n`, 0o600);
