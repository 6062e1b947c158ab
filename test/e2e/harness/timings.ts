import { appendFileSync } from 'node:fs';

/** Measured durations, printed as they happen and appended as JSON lines to `file` (for the closing note). */
export class Timings {
  constructor(private readonly file: string) {}

  record(label: string, seconds: number): void {
    const rounded = Math.round(seconds * 10) / 10;
    process.stdout.write(`[e2e timing] ${label}: ${rounded.toFixed(1)} s\n`);
    appendFileSync(this.file, JSON.stringify({ label, seconds: rounded }) + '\n');
  }

  /** Records the time from `startMs` (epoch ms) to now, and returns it in seconds. */
  since(label: string, startMs: number): number {
    const seconds = (Date.now() - startMs) / 1000;
    this.record(label, seconds);
    return seconds;
  }
}
