import { lstat, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import type { DeviceFileType } from '@outpost/shared';
import type { Probe } from './probe.js';
import { errorText, healthy, missingMember, unhealthy } from './probe.js';

/** Device file: the path exists and, when a type is given, is of that type (SYMLINK looks at the link itself). */
export const deviceFileProbe: Probe = async (spec) => {
  const file = spec.deviceFile;
  if (file === undefined) return missingMember(spec);
  let stats: Stats;
  try {
    stats = file.type === 'SYMLINK' ? await lstat(file.path) : await stat(file.path);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    return unhealthy(code === 'ENOENT' ? `${file.path} does not exist` : `${file.path}: ${errorText(err)}`);
  }
  const actual = fileTypeOf(stats);
  if (file.type !== undefined && actual !== file.type) {
    return unhealthy(`${file.path} is ${describe(actual)}, expected ${describe(file.type)}`);
  }
  return healthy(`${file.path} is present (${describe(actual)})`);
};

function fileTypeOf(stats: Stats): DeviceFileType | 'OTHER' {
  if (stats.isSymbolicLink()) return 'SYMLINK';
  if (stats.isFile()) return 'FILE';
  if (stats.isDirectory()) return 'DIRECTORY';
  if (stats.isCharacterDevice()) return 'CHARACTER_DEVICE';
  if (stats.isBlockDevice()) return 'BLOCK_DEVICE';
  if (stats.isSocket()) return 'SOCKET';
  return 'OTHER';
}

const describe = (type: DeviceFileType | 'OTHER'): string => type.toLowerCase().replaceAll('_', ' ');
