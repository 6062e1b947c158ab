import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The folder holding the dashboard's files (index.html, its scripts and styles). They are plain browser files, so
 * `tsc` does not emit them: `npm run build` copies `src/web/assets` to `dist/web/assets`
 * (`control-plane/copy-web-assets.mjs`), beside this module once compiled. Run from the sources (tests, tsx) the
 * folder is beside this file already; a `dist` built by `tsc` alone falls back to the sources.
 */
export function dashboardAssetDirectory(): string {
  const candidates = [new URL('./assets/', import.meta.url), new URL('../../src/web/assets/', import.meta.url)];
  const found = candidates.find((dir) => existsSync(new URL('index.html', dir)));
  if (found === undefined) {
    throw new Error(
      `the dashboard's files are missing (looked in ${candidates.map((c) => fileURLToPath(c)).join(', ')})`,
    );
  }
  return fileURLToPath(found);
}
