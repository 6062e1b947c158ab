import { createPublicKey } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { isNotFound } from '@outpost/shared';

export interface TrustedKey {
  /** the file it came from */
  source: string;
  key: KeyObject;
}

export interface TrustedKeys {
  keys: TrustedKey[];
  /** files that are not ed25519 public keys (logged, ignored) */
  problems: string[];
}

/** Every ed25519 public key (PEM SPKI) in a `*.pub` file of `dirs`, read fresh at each verification. */
export async function loadTrustedKeys(dirs: readonly string[]): Promise<TrustedKeys> {
  const result: TrustedKeys = { keys: [], problems: [] };
  for (const dir of dirs) {
    let names: string[];
    try {
      names = (await readdir(dir)).filter((name) => name.endsWith('.pub')).sort();
    } catch (err) {
      if (isNotFound(err)) continue;
      throw err;
    }
    for (const name of names) {
      const source = join(dir, name);
      try {
        const key = createPublicKey(await readFile(source, 'utf8'));
        if (key.asymmetricKeyType === 'ed25519') result.keys.push({ source, key });
        else result.problems.push(`${source} is a ${key.asymmetricKeyType ?? 'non-asymmetric'} key, not ed25519`);
      } catch (err) {
        result.problems.push(`${source} is not a PEM public key: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }
  return result;
}
