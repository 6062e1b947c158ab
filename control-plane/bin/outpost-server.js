#!/usr/bin/env -S node --max-semi-space-size=64
// The `outpost-server` command as npm links it. npm links a package's bins while it installs, before `npm install` has built
// dist/ (and it skips a bin whose file is missing), so the bin is this committed file, which runs the build output.
// Its first line gives node the control plane's flags (CONTROL_PLANE_NODE_FLAGS in src/server/node-flags.ts): V8
// takes them only when the process starts.
import { existsSync } from 'node:fs';
import { URL, fileURLToPath } from 'node:url';

const built = new URL('../dist/server/main.js', import.meta.url);
if (!existsSync(built)) {
  process.stderr.write(`outpost-server is not built yet (${fileURLToPath(built)} is missing): run npm run build\n`);
  process.exit(1);
}
await import(built.href);
