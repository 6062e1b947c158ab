import { invalidArgument } from '../../errors/api-error.js';

const MAX_ENTRY_PATH = 4096;

/**
 * Checks a path inside a transfer (`dir/sub/file.txt`): relative, '/'-separated, no empty, `.` or `..`
 * segments, no NUL. With TreeWriter, which never follows a link below the root (ConfinedTree), an entry a peer
 * sends can then never land outside its destination.
 */
export function checkEntryPath(path: unknown): string {
  if (typeof path !== 'string' || path === '') throw invalidArgument('a transfer entry needs a path');
  const problem = entryPathProblem(path);
  if (problem !== undefined) throw invalidArgument(`refused transfer entry ${JSON.stringify(path)}: ${problem}`);
  return path;
}

function entryPathProblem(path: string): string | undefined {
  if (path.length > MAX_ENTRY_PATH) return `longer than ${MAX_ENTRY_PATH} characters`;
  if (path.includes('\0')) return 'contains NUL';
  if (path.startsWith('/')) return 'is absolute';
  for (const segment of path.split('/')) {
    if (segment === '') return 'has an empty segment';
    if (segment === '.' || segment === '..') return `"${segment}" segments are not allowed`;
  }
  return undefined;
}

/** The entry's segments after the first (its root). */
export const belowRoot = (path: string): string[] => path.split('/').slice(1);

/** The first segment of an entry: the name of what was copied. */
export const rootOf = (path: string): string => path.split('/')[0] ?? path;

/**
 * Where an entry of a transfer lands (spec 000 "File transfer path rules"). With `into`, `destination` is a
 * directory that receives the copied root under its own name (`/srv/` + `photos/a.jpg` → `/srv/photos/a.jpg`);
 * without it, `destination` is the root's new name (`/srv/pics` + `photos/a.jpg` → `/srv/pics/a.jpg`).
 */
export function placeEntry(destination: string, entryPath: string, into: boolean): string {
  const base = destination.length > 1 ? destination.replace(/\/+$/, '') : destination;
  const rest = into ? entryPath.split('/') : belowRoot(entryPath);
  if (rest.length === 0) return base;
  return base.endsWith('/') ? `${base}${rest.join('/')}` : `${base}/${rest.join('/')}`;
}

/** The last segment of a path, ignoring trailing slashes (`/a/b/` → `b`); '' for the root. */
export function lastSegment(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}
