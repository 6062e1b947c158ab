import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { hookRunSchema, readJsonFile, writeJsonFileAtomic } from '@outpost/shared';
import type { HookName, HookRun } from '@outpost/shared';

/** {device_root}/config/hooks/<name>: the user's script (persistent: survives reboots and OS upgrades). */
export const hookFile = (deviceRoot: string, name: HookName): string => join(deviceRoot, 'config', 'hooks', name);

/** {device_root}/data/hooks/<name>.json: the latest run of that hook, read by the agent for `status.hooks`. */
export const hookRunFile = (deviceRoot: string, name: HookName): string =>
  join(deviceRoot, 'data', 'hooks', `${name}.json`);

/** True for a regular file (or a link to one) this process may execute. */
export async function isExecutableFile(path: string): Promise<boolean> {
  try {
    if (!(await stat(path)).isFile()) return false;
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The latest recorded run of a hook; undefined when there is none or the record is unreadable. */
export async function readHookRun(deviceRoot: string, name: HookName): Promise<HookRun | undefined> {
  try {
    const parsed = hookRunSchema.safeParse(await readJsonFile(hookRunFile(deviceRoot, name)));
    return parsed.success && parsed.data.hook === name ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export function writeHookRun(deviceRoot: string, run: HookRun): Promise<void> {
  return writeJsonFileAtomic(hookRunFile(deviceRoot, run.hook), run);
}
