import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The folder holding the built dashboard (index.html, the bundled script and style): `npm run build` bundles
 * `src/web/assets` into `dist/web/assets` (`control-plane/build-dashboard.mjs`), beside this module once compiled.
 * Run from the sources (tests, tsx) it is `../../dist/web/assets`. The sources themselves are never served: their
 * modules import libraries by package name, which a browser cannot resolve. When no build is found the folder is
 * still returned: the dashboard routes then answer that the dashboard is not built.
 */
export function dashboardAssetDirectory(): string {
  const candidates = [new URL('./assets/', import.meta.url), new URL('../../dist/web/assets/', import.meta.url)];
  const found = candidates.find((dir) => existsSync(new URL('app.js', dir)));
  return fileURLToPath(found ?? candidates[candidates.length - 1]!);
}
