import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file is scripts/bench/lib/preflight.ts). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** The compiled file that shows a package was built (a library's index, the control plane's server). */
const PACKAGE_ENTRIES: Record<string, string> = { 'control-plane': 'server.js' };

/**
 * Stops the process with a clear message when a workspace package has not been built: tsx resolves
 * `@outpost/<package>` through node_modules to `<package>/dist`, so a missing build fails otherwise with an
 * obscure module-resolution error. Warns (on stderr) when a source file is newer than the build.
 * Call it before the first (dynamic) import of such a package.
 */
export function requireBuiltPackages(packages: readonly string[]): void {
  for (const pkg of packages) {
    const entry = join(REPO_ROOT, pkg, 'dist', PACKAGE_ENTRIES[pkg] ?? 'index.js');
    if (!existsSync(entry)) {
      process.stderr.write(
        `benchmark cannot start: ${relative(REPO_ROOT, entry)} is missing. Run \`npm run build\` in ${REPO_ROOT} first.\n`,
      );
      process.exit(1);
    }
    const stale = firstStaleSource(join(REPO_ROOT, pkg, 'src'), join(REPO_ROOT, pkg, 'dist'));
    if (stale) {
      process.stderr.write(
        `warning: ${relative(REPO_ROOT, stale)} changed after the last build; run \`npm run build\` for current figures\n`,
      );
    }
  }
}

/** A source file whose compiled .js is missing or older than it, if any. */
function firstStaleSource(srcDir: string, distDir: string): string | undefined {
  if (!existsSync(srcDir)) return undefined;
  for (const entry of readdirSync(srcDir, { withFileTypes: true })) {
    const source = join(srcDir, entry.name);
    if (entry.isDirectory()) {
      const stale = firstStaleSource(source, join(distDir, entry.name));
      if (stale) return stale;
    } else if (entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
      const compiled = join(distDir, entry.name.replace(/\.ts$/, '.js'));
      if (!existsSync(compiled) || statSync(compiled).mtimeMs < statSync(source).mtimeMs) return source;
    }
  }
  return undefined;
}
