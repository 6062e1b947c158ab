import { readdirSync } from 'node:fs';

/** How many file descriptors this process holds now (Linux /proc); undefined where that cannot be read. */
export function openFileDescriptors(): number | undefined {
  try {
    return readdirSync('/proc/self/fd').length;
  } catch {
    return undefined;
  }
}
