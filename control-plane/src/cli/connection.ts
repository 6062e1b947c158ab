import type { Command } from 'commander';
import { DEFAULT_SERVER } from './context.js';
import { readCaFile } from './trusted-ca.js';

/** The server address, API key and trusted CA a command runs with (flags beat the environment), for raw transfers. */
export function connectionOf(command: Command): { server: string; apiKey?: string; ca?: string } {
  const opts = command.optsWithGlobals<{ server?: string; key?: string; caFile?: string }>();
  const server = opts.server ?? (process.env['OUTPOST_SERVER'] || DEFAULT_SERVER);
  const apiKey = opts.key ?? (process.env['OUTPOST_API_KEY'] || undefined);
  const caFile = opts.caFile ?? (process.env['OUTPOST_CA_FILE'] || undefined);
  return {
    server,
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(caFile === undefined ? {} : { ca: readCaFile(caFile) }),
  };
}
