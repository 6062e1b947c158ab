/**
 * The runnable examples of README.md: every fenced `sh` block right after a `<!-- example: <section> -->`
 * comment, cut into the shell commands it holds. Pure: text in, commands out.
 */

export interface ShellCommand {
  /** the command as written, continuation lines and comments included */
  text: string;
  /** 1-based line in the markdown where it starts */
  line: number;
}

export interface ExampleBlock {
  section: string;
  /** 1-based line of the block's opening fence */
  line: number;
  commands: ShellCommand[];
}

/** How the README test treats a command. */
export type CommandKind =
  /** run to completion; it must exit 0 */
  | { kind: 'run' }
  /** it does not end by itself (a server, an agent, a watch): it must start and print, then it is interrupted */
  | { kind: 'bounded' }
  /** not run, for the reason given */
  | { kind: 'not-run'; reason: string };

const MARKER = /^<!--\s*example:\s*([a-z0-9-]+)\s*-->\s*$/;
const FENCE = /^\s*```/;

export function exampleBlocks(markdown: string): ExampleBlock[] {
  const lines = markdown.split('\n');
  const blocks: ExampleBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const section = MARKER.exec(lines[i] ?? '')?.[1];
    if (section === undefined) continue;
    let open = i + 1;
    while ((lines[open] ?? '').trim() === '' && open < lines.length) open++;
    if (lines[open]?.trim() !== '```sh') {
      throw new Error(`README.md:${i + 1}: <!-- example: ${section} --> must be followed by a \`\`\`sh block`);
    }
    const close = lines.findIndex((line, at) => at > open && FENCE.test(line));
    if (close < 0) throw new Error(`README.md:${open + 1}: the example block is never closed`);
    const body = lines.slice(open + 1, close).join('\n');
    const commands = shellCommands(body).map((c) => ({ ...c, line: c.line + open + 1 }));
    blocks.push({ section, line: open + 1, commands });
    i = close;
  }
  return blocks;
}

/**
 * Cuts shell text into commands: a newline ends a command unless it is escaped (`\`) or inside quotes;
 * lines holding only a comment are dropped. Enough of the shell's grammar for examples, no more.
 */
export function shellCommands(text: string): ShellCommand[] {
  const commands: ShellCommand[] = [];
  let current = '';
  let startLine = 1;
  let line = 1;
  let quote: "'" | '"' | undefined;
  let comment = false;
  const escaped = (at: number): string => {
    const next = text.charAt(at);
    if (next === '\n') line++;
    return next;
  };
  const finish = (): void => {
    if (current.trim() !== '' && !isCommentOnly(current)) commands.push({ text: current.trim(), line: startLine });
    current = '';
  };
  for (let i = 0; i < text.length; i++) {
    const char = text.charAt(i);
    if (current.trim() === '') startLine = line;
    if (char === '\n') line++;
    if (comment) {
      if (char === '\n') {
        comment = false;
        finish();
      } else current += char;
      continue;
    }
    if (quote !== undefined) {
      if (char === '\\' && quote === '"') {
        current += char + escaped(++i);
        continue;
      }
      if (char === quote) quote = undefined;
      current += char;
      continue;
    }
    if (char === '\\') {
      current += char + escaped(++i);
      continue;
    }
    if (char === "'" || char === '"') quote = char;
    if (char === '#' && (current === '' || /\s$/.test(current))) comment = true;
    if (char === '\n') {
      finish();
      continue;
    }
    current += char;
  }
  if (quote !== undefined) throw new Error(`an example has an unclosed ${quote} quote: ${current.trim()}`);
  finish();
  return commands;
}

const isCommentOnly = (text: string): boolean => text.trimStart().startsWith('#');

/** The command without its comments: what is executed. */
export function withoutComments(command: ShellCommand): string {
  return shellCode(command.text);
}

function shellCode(text: string): string {
  let out = '';
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const char = text.charAt(i);
    if (quote !== undefined) {
      if (char === '\\' && quote === '"') {
        out += char + text.charAt(++i);
        continue;
      }
      if (char === quote) quote = undefined;
      out += char;
      continue;
    }
    if (char === '\\') {
      out += char + text.charAt(++i);
      continue;
    }
    if (char === "'" || char === '"') quote = char;
    if (char === '#' && (out === '' || /\s$/.test(out))) {
      const end = text.indexOf('\n', i);
      if (end < 0) break;
      i = end - 1;
      continue;
    }
    out += char;
  }
  return out.trim();
}

/**
 * A synopsis line (`<placeholder>`, `[--option]`, `a|b`) in an example block: it cannot run, so it belongs in an
 * unmarked block. Quoted text (JSON, filters) is not looked at.
 */
export function synopsisProblem(command: ShellCommand): string | undefined {
  const code = withoutComments(command).replace(/'[^']*'|"(?:[^"\\]|\\.)*"/g, "''");
  if (/<[a-z_ -]+>/i.test(code)) return 'a <placeholder>';
  if (/\[-/.test(code) || /\s\[[a-z]/i.test(code)) return 'an [optional] part';
  if (/\s[a-z-]+\|[a-z-]+(\s|$)/.test(code)) return 'a choice a|b';
  return undefined;
}

const NOT_RUN: readonly { pattern: RegExp; reason: string }[] = [
  {
    pattern: /^npm (install|ci)\b/,
    reason: 'it would reinstall the very tree the test runs from (.ci/run runs it on a fresh clone)',
  },
  { pattern: /^npm (test|run lint)\b/, reason: 'the test suite and the linter run on their own' },
];

/** Servers, agents and watches run until stopped. */
const BOUNDED: readonly RegExp[] = [/^npm start\b/, /^droplet(?!\s+run-hook\b)(\s|$)/, /^outpost\s+\S+\s+watch\s/];

/** `curlInstalled`: false on a machine without curl, whose curl examples are then not run (CI installs curl). */
export function commandKind(command: ShellCommand, curlInstalled = true): CommandKind {
  const code = withoutComments(command);
  const notRun = NOT_RUN.find((entry) => entry.pattern.test(code));
  if (notRun) return { kind: 'not-run', reason: notRun.reason };
  if (!curlInstalled && /^curl\s/.test(code)) {
    return {
      kind: 'not-run',
      reason: 'curl is not installed here (.ci/run installs it, and under CI=true it must run)',
    };
  }
  if (BOUNDED.some((pattern) => pattern.test(code))) return { kind: 'bounded' };
  return { kind: 'run' };
}
