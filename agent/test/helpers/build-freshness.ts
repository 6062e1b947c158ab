import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const checked = new Set<string>();

/** The newest file under `dir` (walks the tree; mtimes only). */
function newestFile(dir: string): { path: string; mtimeMs: number } | undefined {
  let newest: { path: string; mtimeMs: number } | undefined;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const candidate = entry.isDirectory()
      ? newestFile(path)
      : entry.isFile()
        ? { path, mtimeMs: statSync(path).mtimeMs }
        : undefined;
    if (candidate !== undefined && (newest === undefined || candidate.mtimeMs > newest.mtimeMs)) newest = candidate;
  }
  return newest;
}

/**
 * `built` (a program in a package's dist/, which tests run as a child process), once it is known to be there and
 * newer than every file it is built from: its package's `src` and shared/src. Throws otherwise, so that a test run
 * after an edit never checks a stale build. Checked once per test process.
 */
export function requireFreshBuild(built: string): string {
  if (checked.has(built)) return built;
  const hint = 'run `npm run build` first (npm test does)';
  if (!existsSync(built)) throw new Error(`${built} is missing: ${hint}`);
  const packageName = relative(repoRoot, built).split(/[\\/]/)[0] ?? '';
  const sources = [join(repoRoot, packageName, 'src'), join(repoRoot, 'shared', 'src')].filter(existsSync);
  // tsc -b rewrites only the outputs of changed files, and touches the package's build info on every build that
  // found something newer (also for a change in shared/src): the build is as new as the newer of the two
  const buildInfo = join(repoRoot, packageName, 'dist', '.tsbuildinfo');
  const builtAt = Math.max(statSync(built).mtimeMs, existsSync(buildInfo) ? statSync(buildInfo).mtimeMs : 0);
  for (const dir of sources) {
    const newest = newestFile(dir);
    if (newest !== undefined && newest.mtimeMs > builtAt) {
      throw new Error(`${built} is older than the sources (${newest.path} changed since): ${hint}`);
    }
  }
  checked.add(built);
  return built;
}
