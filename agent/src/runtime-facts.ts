import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';

/**
 * The agent's version, from its package.json: one level above src/ and dist/, two above the bundle's chunks
 * (dist/chunks/), whichever of those this code was loaded from.
 */
export async function readAgentVersion(): Promise<string> {
  for (const manifest of ['../package.json', '../../package.json']) {
    try {
      const parsed = JSON.parse(await readFile(new URL(manifest, import.meta.url), 'utf8')) as {
        name?: unknown;
        version?: unknown;
      };
      if (parsed.name === '@outpost/agent' && typeof parsed.version === 'string') return parsed.version;
    } catch {
      // not there: the next candidate
    }
  }
  return '0.0.0';
}

/** The kernel's boot id (changes at every boot); a random one where the kernel has none. */
export async function readBootId(): Promise<string> {
  try {
    const bootId = (await readFile('/proc/sys/kernel/random/boot_id', 'utf8')).trim();
    if (bootId !== '') return bootId;
  } catch {
    // not Linux, or /proc not mounted
  }
  return randomUUID();
}
