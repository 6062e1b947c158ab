#!/usr/bin/env node
// The droplet entry point. `npm run build` bundles it (agent/bundle.mjs) into dist/main.js: this file, then the
// rest of the agent (cli.ts and what it imports), loaded once V8 is set up.
import { setFlagsFromString } from 'node:v8';

// Before any other code is compiled, and wherever the agent runs (systemd unit, image, tests, benchmarks):
// V8 runs the agent on its bytecode interpreter only, without the baseline and optimizing compilers. Their
// code and working memory (~5 MiB resident, a quarter of what the agent adds to a bare node) never enter a
// process that is idle nearly all the time; the heavy lifting (hashing, TLS, compression, file and socket I/O)
// is native code either way, so a 1 GiB transfer costs the agent about the same CPU time. See
// scripts/bench/agent-idle.ts.
setFlagsFromString('--max-opt=0');
await import('./zod-jitless.js');
await import('./cli.js');
