import type { Device } from '@outpost/shared';
import { osReadyOf } from './device-history.js';

/** `expected` appears in `seen` in this order (other entries may come between). */
export function inOrder(seen: readonly string[], expected: readonly string[]): boolean {
  let next = 0;
  for (const value of seen) if (value === expected[next]) next++;
  return next === expected.length;
}

/** The percentage of OSReady=False/Downloading (`downloading 1.1.0: 42%`), undefined when not downloading. */
export function downloadPercent(device: Device): number | undefined {
  const ready = osReadyOf(device);
  if (ready?.reason !== 'Downloading') return undefined;
  const match = /: (\d+)%/.exec(ready.message);
  return match ? Number(match[1]) : undefined;
}
