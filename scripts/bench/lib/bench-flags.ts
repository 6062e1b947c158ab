import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

/** One flag of a benchmark. */
export interface FlagSpec {
  /** its value's placeholder in the usage (`N`, `URL`); a flag without one is a switch, off unless given */
  value?: string;
  /** taken when the flag is not given, and shown in the usage */
  default?: string;
  /** what it does (and, without `default`, what happens when it is not given) */
  help: string;
}

type FlagValues<F> = {
  -readonly [K in keyof F]: F[K] extends { value: string }
    ? F[K] extends { default: string }
      ? string
      : string | undefined
    : boolean;
};

export interface BenchUsage<F> {
  /** the file under scripts/bench, e.g. `limits.ts` */
  script: string;
  /** what it measures, in a line or two (its opening comment tells the rest) */
  summary: string;
  flags: F;
  /** the positional arguments it takes, as the usage line shows them; none when absent */
  positionals?: string;
  /** further lines for the usage: environment variables it reads, flags that go together */
  notes?: string;
  /** the script's `import.meta.url`: the usage ends with the script's opening comment (its figures, in full) */
  printOpeningCommentOf?: string;
}

export interface BenchCommandLine<F> {
  values: FlagValues<F>;
  positionals: string[];
  /** Refuses the command line: `message` and "try --help" on one line of stderr, exit status 2. */
  fail(message: string): never;
  /** `text` as a whole number of at least `min`, else fail naming `--flag`. */
  integer(text: string, flag: string, min?: number): number;
}

const HELP_FLAG = { help: 'print this text and exit' };

/**
 * A benchmark's command line, parsed strictly before it does any work: `--help` / `-h` prints the usage (every flag
 * with what it does and its default) and exits 0; an unknown flag, a missing value or an unexpected argument prints
 * one line and "try --help" on stderr and exits 2.
 */
export function parseBenchFlags<const F extends Readonly<Record<string, FlagSpec>>>(
  usage: BenchUsage<F>,
  args: readonly string[] = process.argv.slice(2),
): BenchCommandLine<F> {
  const name = usage.script.replace(/\.ts$/, '');
  const fail = (message: string): never => {
    process.stderr.write(`${name}: ${message}; try --help\n`);
    process.exit(2);
  };
  const beforeEnd = args.includes('--') ? args.slice(0, args.indexOf('--')) : args;
  if (beforeEnd.includes('--help') || beforeEnd.includes('-h')) {
    process.stdout.write(usageText(usage));
    process.exit(0);
  }
  const options: Record<string, { type: 'string' | 'boolean'; default?: string | boolean }> = {};
  for (const [flag, spec] of Object.entries(usage.flags)) {
    options[flag] =
      spec.value === undefined
        ? { type: 'boolean', default: false }
        : { type: 'string', ...(spec.default === undefined ? {} : { default: spec.default }) };
  }
  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({ args: [...args], options, strict: true, allowPositionals: usage.positionals !== undefined });
  } catch (err) {
    return fail(err instanceof Error ? err.message : String(err));
  }
  const integer = (text: string, flag: string, min = 1): number => {
    const n = Number(text);
    if (text.trim() === '' || !Number.isSafeInteger(n) || n < min) {
      return fail(`--${flag} must be a whole number of at least ${min}, not "${text}"`);
    }
    return n;
  };
  // the options above were built from `usage.flags`: a switch is a boolean, a flag with a value a string
  return { values: parsed.values as FlagValues<F>, positionals: parsed.positionals, fail, integer };
}

const WIDTH = 116;
const FLAG_COLUMN = 30;

/** The text `--help` prints. */
export function usageText(usage: BenchUsage<Readonly<Record<string, FlagSpec>>>): string {
  const rows = Object.entries(usage.flags).map(([flag, spec]) => ({
    flag: `--${flag}${spec.value === undefined ? '' : ` ${spec.value}`}`,
    help: spec.default === undefined ? spec.help : `${spec.help} (default ${spec.default})`,
  }));
  rows.push({ flag: '-h, --help', help: HELP_FLAG.help });
  const lines = [
    `Usage: npx tsx scripts/bench/${usage.script} [options]${usage.positionals === undefined ? '' : ` ${usage.positionals}`}`,
    ...wrap(usage.summary, WIDTH),
    '',
    'Options:',
  ];
  for (const row of rows) {
    const help = wrap(row.help, WIDTH - FLAG_COLUMN);
    const first = `  ${row.flag}`;
    if (first.length < FLAG_COLUMN) lines.push(first.padEnd(FLAG_COLUMN) + (help.shift() ?? ''));
    else lines.push(first);
    for (const rest of help) lines.push(' '.repeat(FLAG_COLUMN) + rest);
  }
  if (usage.notes !== undefined) lines.push('', ...usage.notes.split('\n').flatMap((line) => wrap(line, WIDTH)));
  if (usage.printOpeningCommentOf === undefined) {
    lines.push('', `What it measures and how: the opening comment of scripts/bench/${usage.script}.`);
  } else {
    const source = readFileSync(new URL(usage.printOpeningCommentOf), 'utf8');
    const comment = /\/\*\*\n([\s\S]*?)\n \*\//.exec(source)?.[1] ?? '';
    lines.push('', comment.replace(/^ \* ?/gm, ''));
  }
  return lines.join('\n') + '\n';
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines;
}
