#!/usr/bin/env node
// The `outpost-server` command as npm links it. npm links a package's bins while it installs, before `npm install` has built
// dist/ (and it skips a bin whose file is missing), so the bin is this committed file, which runs the build output.
import { existsSync } from 'node:fs';
import { URL, fileURLToPath } from 'node:url';

const built = new URL('../dist/server/main.js', import.meta.url);
if (!existsSync(built)) {
  process.stderr.write(`outpost-server is not built yet (${fileURLToPath(built)} is missing): run npm run build\n`);
  process.exit(1);
}
await import(built.href);
