#!/usr/bin/env node
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
});
