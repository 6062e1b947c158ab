import { readFile, readdir } from 'node:fs/promises';

/** The text of a small kernel or config file, or undefined when it is missing or unreadable. */
export async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** A one-value file (/sys attributes, device-tree strings): trimmed, NULs removed; '' when unreadable. */
export async function readValue(path: string): Promise<string> {
  return ((await readText(path)) ?? '').replaceAll('\0', '').trim();
}

/** The entries of a folder; none when it is missing or unreadable. */
export async function listDir(path: string): Promise<string[]> {
  try {
    return await readdir(path);
  } catch {
    return [];
  }
}

/** `Key: value` lines (/proc/meminfo, /proc/cpuinfo): the first value of each key. */
export function colonFields(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of text.split('\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const key = line.slice(0, colon).trim();
    if (!fields.has(key)) fields.set(key, line.slice(colon + 1).trim());
  }
  return fields;
}
