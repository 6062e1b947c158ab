import { createRequire } from 'node:module';
import { ApiError } from '@outpost/shared';
import { Command, CommanderError, Option } from 'commander';
import { contextFactory, DEFAULT_SERVER, type ContextFactory } from './context.js';
import { ExitStatus } from './exit-status.js';
import type { CliIo } from './io.js';
import { OUTPUT_FORMATS } from './output.js';
import { UsageError } from './usage-error.js';

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

/**
 * The `outpost` program with its global options and no commands yet; registrars add command groups.
 * Commander never exits the process: runProgram turns its errors into exit codes.
 */
export function createProgram(io: CliIo): { program: Command; ctxFactory: ContextFactory } {
  const program = new Command('outpost')
    .description('Command line of the Outpost control plane')
    // not --version: publish and rollout-status take a --version of their own
    .version(version, '-V, --cli-version', 'print the version of this command line')
    .addOption(new Option('--server <url>', `control plane address (env OUTPOST_SERVER, default ${DEFAULT_SERVER})`))
    .addOption(new Option('--key <apiKey>', 'API key (env OUTPOST_API_KEY)'))
    .addOption(
      new Option('--ca-file <pem>', 'trust only these CA certificates for an https server (env OUTPOST_CA_FILE)'),
    )
    .addOption(new Option('-o, --output <format>', 'output format (default table)').choices(OUTPUT_FORMATS))
    .exitOverride()
    .configureOutput({ writeOut: (t) => io.stdout(t), writeErr: (t) => io.stderr(t) })
    .showHelpAfterError('(add --help for usage)');
  return { program, ctxFactory: contextFactory(io, `outpost-cli/${version}`) };
}

/**
 * Runs the program and answers the exit status: 0 success; 1 when the server or the network refused
 * (printed as `error: <STATUS>: <message>`); 2 for usage errors.
 */
export async function runProgram(program: Command, argv: readonly string[], io: CliIo): Promise<number> {
  try {
    await program.parseAsync(localFlags(argv), { from: 'user' });
    return EXIT_OK;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT_OK : EXIT_USAGE; // commander printed it
    if (err instanceof ExitStatus) {
      if (err.message !== '') io.stderr(`error: ${err.message}\n`);
      return err.code;
    }
    if (err instanceof UsageError) {
      io.stderr(`error: ${err.message}\n`);
      return EXIT_USAGE;
    }
    if (err instanceof ApiError) {
      io.stderr(`error: ${err.status}: ${err.message}\n`);
      return EXIT_FAILED;
    }
    io.stderr(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    return EXIT_FAILED;
  }
}

/**
 * Flags a command defines with the name of a global option: `outpost os publish --key signing.key` means the
 * signing key and `collect-debug-bundle -o file` the bundle file (issue contracts), while `--key` and `-o`
 * elsewhere are the API key and the output format. After the command's words, such a flag
 * is renamed to the command's own option; before them it stays global.
 */
const LOCAL_FLAGS: readonly { command: readonly string[]; flag: string; local: string }[] = [
  { command: ['os', 'publish'], flag: '--key', local: '--signing-key' },
  // `collect-debug-bundle <device> -o file` names the bundle file, not the output format
  { command: ['devices', 'collect-debug-bundle'], flag: '-o', local: '--file' },
];

export function localFlags(argv: readonly string[]): string[] {
  const out = [...argv];
  for (const rule of LOCAL_FLAGS) {
    const at = out.findIndex((word, i) => rule.command.every((part, k) => out[i + k] === part));
    if (at < 0) continue;
    for (let i = at + rule.command.length; i < out.length; i++) {
      if (out[i] === rule.flag) out[i] = rule.local;
      else if (out[i]!.startsWith(rule.flag + '=')) out[i] = rule.local + out[i]!.slice(rule.flag.length);
    }
  }
  return out;
}
