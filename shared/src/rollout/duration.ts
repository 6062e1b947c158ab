import { parseDuration } from '../netconfig/duration.js';

/**
 * Milliseconds of a rollout duration, written `60s`, `10m`, `1h` (or `1h30m`, `500ms`, `0s`); throws an Error
 * saying what is accepted for anything else.
 */
export function parseRolloutDuration(text: string): number {
  const ms = parseDuration(text.trim());
  if (ms === undefined) {
    throw new Error(`"${text}" is not a duration: write a number and a unit, e.g. 60s, 10m, 1h (or 1h30m, 500ms)`);
  }
  return ms;
}

/** A duration as people write it: `0s`, `45s`, `10m`, `1h5m`, `2.5s` below ten seconds. */
export function formatDuration(ms: number): string {
  if (ms < 10_000) return `${Math.round(ms / 100) / 10}s`;
  const seconds = Math.round(ms / 1000);
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return [h ? `${h}h` : '', m ? `${m}m` : '', s || (!h && !m) ? `${s}s` : ''].join('');
}
