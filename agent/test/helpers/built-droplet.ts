import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const bundle = join(repoRoot, 'agent', 'dist', 'main.js');
// what the bundle is built from: the agent and @outpost/shared (bundled from shared/dist, built from shared/src)
const sources = [join(repoRoot, 'agent', 'src'), join(repoRoot, 'shared', 'src')];

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
 * The built droplet command (agent/dist/main.js), which tests run as a child process: it starts in a fraction of
 * the time the TypeScript sources take through tsx, and is what installations run. Throws when the bundle is missing
 * or older than a source file, so that a test run after an edit never checks a stale bundle.
 */
export function builtDroplet(): string {
  const hint = 'run `npm run build` first (npm test does)';
  if (!existsSync(bundle)) throw new Error(`${bundle} is missing: ${hint}`);
  const builtAt = statSync(bundle).mtimeMs;
  for (const dir of sources) {
    const newest = newestFile(dir);
    if (newest !== undefined && newest.mtimeMs > builtAt) {
      throw new Error(`${bundle} is older than the sources (${newest.path} changed since): ${hint}`);
    }
  }
  return bundle;
}
