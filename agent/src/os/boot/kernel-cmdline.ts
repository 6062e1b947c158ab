import { readFile } from 'node:fs/promises';

/** The `key=value` parameters of a kernel command line (flags without a value map to ''). */
export function parseKernelCmdline(cmdline: string): Map<string, string> {
  const parameters = new Map<string, string>();
  for (const word of cmdline.trim().split(/\s+/)) {
    if (word === '') continue;
    const equals = word.indexOf('=');
    if (equals < 0) parameters.set(word, '');
    else parameters.set(word.slice(0, equals), word.slice(equals + 1));
  }
  return parameters;
}

export async function readKernelCmdline(path: string): Promise<Map<string, string>> {
  return parseKernelCmdline(await readFile(path, 'utf8'));
}
