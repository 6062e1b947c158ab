// Builds the dashboard into dist/web/assets (part of `npm run build`): esbuild bundles src/web/assets/app.js and
// what it imports (our modules and the chart library) into one module, with the terminal (xterm.js) split into a
// chunk loaded only when a terminal tab opens; dashboard.css is bundled with the libraries' styles; index.html is
// copied. Nothing is fetched from elsewhere at run time: the server serves this folder.
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { URL, fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const from = fileURLToPath(new URL('./src/web/assets/', import.meta.url));
const to = fileURLToPath(new URL('./dist/web/assets/', import.meta.url));
rmSync(to, { recursive: true, force: true });
mkdirSync(to, { recursive: true });
await build({
  entryPoints: {
    app: `${from}app.js`,
    dashboard: `${from}dashboard.css`,
  },
  outdir: to,
  bundle: true,
  splitting: true,
  format: 'esm',
  target: 'es2022',
  minify: true,
  sourcemap: 'linked',
  chunkNames: 'chunks/[name]-[hash]',
  legalComments: 'linked',
  logLevel: 'warning',
});
copyFileSync(`${from}index.html`, `${to}index.html`);
