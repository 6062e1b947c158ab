import type { Command } from 'commander';
import { DEFAULT_SERVER } from './context.js';

/** The server address and API key a command runs with (flags beat the environment), for raw transfers. */
export function connectionOf(command: Command): { server: string; apiKey?: string } {
  const opts = command.optsWithGlobals<{ server?: string; key?: string }>();
  const server = opts.server ?? (process.env['OUTPOST_SERVER'] || DEFAULT_SERVER);
  const apiKey = opts.key ?? (process.env['OUTPOST_API_KEY'] || undefined);
  return apiKey === undefined ? { server } : { server, apiKey };
}
