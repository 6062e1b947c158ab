import { readFile } from 'node:fs/promises';
import { uptime } from 'node:os';
import { isNotFound } from '@outpost/shared';

/** Where a real device's running root tells what it is. */
export const OS_VERSION_FILE = '/etc/outpost/os-version';
export const DEVICE_TYPE_FILE = '/etc/outpost/device-type';
export const KERNEL_CMDLINE_FILE = '/proc/cmdline';

/** The first line of a small text file (e.g. /etc/outpost/os-version), or undefined when absent or empty. */
export async function readFirstLine(path: string): Promise<string | undefined> {
  try {
    const line = (await readFile(path, 'utf8')).split('\n', 1)[0]?.trim() ?? '';
    return line === '' ? undefined : line;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** When the kernel booted, from its uptime. */
export const kernelBootTimeMs = (): number => Date.now() - Math.round(uptime() * 1000);
