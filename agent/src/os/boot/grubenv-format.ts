/** A GRUB environment block is exactly this many bytes (GRUB's save_env rewrites it in place). */
export const GRUBENV_SIZE = 1024;
const HEADER = '# GRUB Environment Block\n';

/** The variables of a GRUB environment block, in file order. */
export function parseGrubenv(block: Buffer): Map<string, string> {
  const text = block.toString('latin1');
  if (!text.startsWith(HEADER)) throw new Error('not a GRUB environment block (bad header)');
  const variables = new Map<string, string>();
  for (const line of splitLines(text.slice(HEADER.length))) {
    if (line === '' || line.startsWith('#')) continue;
    const equals = line.indexOf('=');
    if (equals <= 0) continue;
    variables.set(line.slice(0, equals), unescape(line.slice(equals + 1)));
  }
  return variables;
}

/** The 1024-byte block holding `variables`; throws when they do not fit. */
export function formatGrubenv(variables: ReadonlyMap<string, string>): Buffer {
  let text = HEADER;
  for (const [name, value] of variables) {
    if (!/^[A-Za-z0-9_.-]+$/.test(name)) throw new Error(`invalid GRUB environment variable name "${name}"`);
    text += `${name}=${escape(value)}\n`;
  }
  const body = Buffer.from(text, 'latin1');
  if (body.length > GRUBENV_SIZE) throw new Error('the GRUB environment block is full');
  return Buffer.concat([body, Buffer.alloc(GRUBENV_SIZE - body.length, '#')]);
}

/** Lines, where a backslash escapes the next character (an escaped newline does not end a line). */
function splitLines(text: string): string[] {
  const lines: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '\\' && i + 1 < text.length) {
      current += char + text[i + 1];
      i++;
    } else if (char === '\n') {
      lines.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  lines.push(current);
  return lines;
}

const escape = (value: string): string => value.replace(/[\\\n]/g, (c) => `\\${c}`);
const unescape = (value: string): string => value.replace(/\\(.)/gs, '$1');
