import { ApiError, OutpostClient } from '@outpost/shared';
import type { Command } from 'commander';
import { parse as parseYaml } from 'yaml';
import type { CliIo } from './io.js';
import { formatOutput, isRecord, type Column, type DisplayWords, type OutputFormat } from './output.js';
import { fetchTrusting, readCaFile } from './trusted-ca.js';
import { UsageError } from './usage-error.js';

export const DEFAULT_SERVER = 'http://127.0.0.1:8080';

/** What every command gets: a client for the chosen server and key, and the chosen way to print. */
export interface CliContext {
  client: OutpostClient;
  format: OutputFormat;
  /** prints a value in the chosen format; table columns are derived when not given */
  output(value: unknown, columns?: readonly Column[], words?: DisplayWords): void;
  /** json/yaml print the whole response, a table shows `rows` */
  outputList(response: unknown, rows: readonly unknown[], columns?: readonly Column[], words?: DisplayWords): void;
  /** one line to stdout */
  print(line: string): void;
  /** one line to stderr (hints that must not mix with the data) */
  note(line: string): void;
  /** the resource of `--file F` (JSON or YAML, `-` for stdin) or `--json J`: exactly one of them */
  readResource(source: { file?: string; json?: string }): Promise<Record<string, unknown>>;
}

/** Builds the context from the options (and the globals) of the command being run. */
export type ContextFactory = (command: Command) => CliContext;

interface GlobalOptions {
  server?: string;
  key?: string;
  caFile?: string;
  output?: OutputFormat;
}

export function contextFactory(io: CliIo, userAgent: string): ContextFactory {
  return (command) => {
    const opts = command.optsWithGlobals<GlobalOptions>();
    const server = opts.server ?? nonEmpty(io.env['OUTPOST_SERVER']) ?? DEFAULT_SERVER;
    const apiKey = opts.key ?? nonEmpty(io.env['OUTPOST_API_KEY']);
    const format = opts.output ?? 'table';
    const caFile = opts.caFile ?? nonEmpty(io.env['OUTPOST_CA_FILE']);
    const fetch = caFile === undefined ? io.fetch : fetchTrusting(readCaFile(caFile), io.fetch);
    const client = createClient({ server, apiKey, fetch, userAgent });
    return {
      client,
      format,
      output: (value, columns, words) => io.stdout(formatOutput(value, format, columns, words)),
      outputList: (response, rows, columns, words) =>
        io.stdout(format === 'table' ? formatOutput(rows, format, columns, words) : formatOutput(response, format)),
      print: (line) => io.stdout(`${line}\n`),
      note: (line) => io.stderr(`${line}\n`),
      readResource: (source) => readResource(io, source),
    };
  };
}

async function readResource(io: CliIo, source: { file?: string; json?: string }): Promise<Record<string, unknown>> {
  if ((source.file === undefined) === (source.json === undefined)) {
    throw new UsageError('give the resource with exactly one of --file <path> and --json <text>');
  }
  let value: unknown;
  if (source.json !== undefined) {
    try {
      value = JSON.parse(source.json);
    } catch (err) {
      throw new UsageError(`--json is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
    }
  } else {
    const file = source.file ?? '-';
    let text: string;
    try {
      text = file === '-' ? await io.readStdin() : await io.readFile(file);
    } catch (err) {
      throw new UsageError(`cannot read ${file}: ${err instanceof Error ? err.message : String(err)}`);
    }
    try {
      value = parseYaml(text);
    } catch (err) {
      throw new UsageError(`${file} is neither JSON nor YAML: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  if (!isRecord(value)) throw new UsageError('the resource must be a JSON or YAML object');
  return value;
}

function createClient(options: ConstructorParameters<typeof OutpostClient>[0]): OutpostClient {
  try {
    return new OutpostClient(options);
  } catch (err) {
    if (err instanceof ApiError) throw new UsageError(`--server: ${err.message}`);
    throw err;
  }
}

const nonEmpty = (value: string | undefined): string | undefined => (value === '' ? undefined : value);
