import { fileURLToPath } from 'node:url';

/**
 * The folder holding the built dashboard (index.html, the bundled script and style): `npm run build` bundles
 * `src/web/assets` into `dist/web/assets` (`control-plane/build-dashboard.mjs`), beside this module once compiled.
 * Run from the sources (tests, tsx) it is `../../dist/web/assets`. The sources themselves are never served: their
 * modules import libraries by package name, which a browser cannot resolve. When no build is found the folder is
 * still returned: the dashboard routes then answer that the dashboard is not built.
 */
export function dashboardAssetDirectory(): string {
  // compiled, this module is dist/web/asset-directory.js; from the sources (src/web/*.ts) the build is elsewhere
  const fromSources = import.meta.url.endsWith('.ts');
  return fileURLToPath(new URL(fromSources ? '../../dist/web/assets/' : './assets/', import.meta.url));
}
