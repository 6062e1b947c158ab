import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file is scripts/bench/lib/preflight.ts). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/**
 * Stops the process with a clear message when a workspace package has not been built: tsx resolves
 * `@outpost/<package>` through node_modules to `<package>/dist`, so a missing build fails otherwise with an
 * obscure module-resolution error. Warns (on stderr) when a source file is newer than the build.
 * Call it before the first (dynamic) import of such a package.
 */
export function requireBuiltPackages(packages: readonly string[]): void {
  for (const pkg of packages) {
    const entry = join(REPO_ROOT, pkg, 'dist', 'index.js');
    if (!existsSync(entry)) {
      process.stderr.write(
        `benchmark cannot start: ${relative(REPO_ROOT, entry)} is missing. Run \`npm run build\` in ${REPO_ROOT} first.\n`,
      );
      process.exit(1);
    }
    const built = statSync(entry).mtimeMs;
    const newer = newestSourceFile(join(REPO_ROOT, pkg, 'src'));
    if (newer && newer.mtimeMs > built) {
      process.stderr.write(
        `warning: ${relative(REPO_ROOT, newer.path)} is newer than ${relative(REPO_ROOT, entry)}; run \`npm run build\` for current figures\n`,
      );
    }
  }
}

function newestSourceFile(dir: string): { path: string; mtimeMs: number } | undefined {
  if (!existsSync(dir)) return undefined;
  let newest: { path: string; mtimeMs: number } | undefined;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const candidate = entry.isDirectory()
      ? newestSourceFile(path)
      : entry.isFile() && entry.name.endsWith('.ts')
        ? { path, mtimeMs: statSync(path).mtimeMs }
        : undefined;
    if (candidate && (!newest || candidate.mtimeMs > newest.mtimeMs)) newest = candidate;
  }
  return newest;
}
