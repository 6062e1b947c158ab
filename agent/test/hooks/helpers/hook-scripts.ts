import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { HookName } from '@outpost/shared';

/** Writes {device_root}/config/hooks/<name> as a shell script (executable unless `mode` says otherwise). */
export async function writeHook(deviceRoot: string, name: HookName, body: string, mode = 0o755): Promise<string> {
  const dir = join(deviceRoot, 'config', 'hooks');
  await mkdir(dir, { recursive: true });
  const file = join(dir, name);
  await writeFile(file, `#!/bin/sh\n${body}\n`);
  await chmod(file, mode);
  return file;
}

/**
 * A hook body appending `<hook> <boot id> <epoch ms>` to {device_root}/data/markers: which hook ran, in
 * which boot, when.
 */
export const markerLine =
  'mkdir -p "$OUTPOST_DEVICE_ROOT/data"; echo "$OUTPOST_HOOK $OUTPOST_BOOT_ID $(date +%s%3N)" >> "$OUTPOST_DEVICE_ROOT/data/markers"';

export interface Marker {
  hook: string;
  bootId: string;
  timeMs: number;
}

export async function readMarkers(deviceRoot: string): Promise<Marker[]> {
  let text = '';
  try {
    text = await readFile(join(deviceRoot, 'data', 'markers'), 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [hook = '', bootId = '', time = '0'] = line.split(' ');
      return { hook, bootId, timeMs: Number(time) };
    });
}

/** True while the process exists and is not a zombie (a zombie has ended; only its parent has not reaped it). */
export async function isRunning(pid: number): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

export async function readPids(file: string): Promise<number[]> {
  const text = await readFile(file, 'utf8');
  return text
    .split(/\s+/)
    .filter((p) => p !== '')
    .map(Number);
}
