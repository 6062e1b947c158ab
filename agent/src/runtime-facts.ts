import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';

/** The agent's version, from its package.json (one level above both src/ and dist/). */
export async function readAgentVersion(): Promise<string> {
  try {
    const manifest = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as {
      version?: unknown;
    };
    return typeof manifest.version === 'string' ? manifest.version : '0.0.0';
  } catch {
    return '0.0.0';
  }
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
