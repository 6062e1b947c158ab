import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

// node's modules only: vitest.config.ts reads this to decide whether the `postgres` project runs

/** The folder of PostgreSQL's server binaries (Debian's layout), or undefined when none is installed. */
export function postgresBinaries(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(root, versions[0], 'bin');
}

/** Why the PostgreSQL half cannot run here (undefined when it can). Under CI it must: callers fail then. */
export function postgresMissing(): string | undefined {
  if (postgresBinaries() === undefined) return 'no PostgreSQL server binaries under /usr/lib/postgresql';
  if (spawnSync('id', ['-u', 'postgres']).status !== 0) return 'no "postgres" user to run the server as';
  return undefined;
}
