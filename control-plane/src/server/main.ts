#!/usr/bin/env node
import { setFlagsFromString } from 'node:v8';
import { startServer } from '../server.js';
import { runServer } from './run.js';

await runServer(startServer, {
  argv: process.argv.slice(2),
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  onShutdownSignal: (handler) => {
    process.on('SIGTERM', handler);
    process.on('SIGINT', handler);
  },
  onReloadSignal: (handler) => process.on('SIGHUP', handler),
  exit: (code) => process.exit(code),
  // V8 reads this flag each time a full collection sets the next one's limit, so setting it at run time takes
  // effect from the next full collection on; 0 is V8's own default (its dynamic factor)
  tuneHeap: (percent) => setFlagsFromString(`--heap-growing-percent=${percent}`),
});
