// Copies the dashboard's browser files (src/web/assets: HTML, CSS, plain JavaScript modules), which tsc does not
// emit, beside the compiled server (dist/web/assets), so `npm start` serves them from dist. Part of `npm run build`.
import { cpSync, rmSync } from 'node:fs';
import { URL, fileURLToPath } from 'node:url';

const from = fileURLToPath(new URL('./src/web/assets/', import.meta.url));
const to = fileURLToPath(new URL('./dist/web/assets/', import.meta.url));
rmSync(to, { recursive: true, force: true });
cpSync(from, to, { recursive: true });
