import { pino } from 'pino';
import type { Logger as PinoLogger, LevelWithSilent } from 'pino';

export type Logger = PinoLogger;

export const LOG_LEVELS: readonly LevelWithSilent[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** JSON lines on stdout (journald keeps them), and in `file` too when one is given. */
export function createLogger(level: LevelWithSilent, file?: string): Logger {
  const options = { level, base: { name: 'droplet' } };
  if (file === undefined) return pino(options, pino.destination({ dest: 1, sync: true }));
  return pino(
    options,
    // the streams take every line the logger lets through: its level alone filters, and may change live
    pino.multistream([
      { level: 'trace', stream: pino.destination({ dest: 1, sync: true }) },
      { level: 'trace', stream: pino.destination({ dest: file, mkdir: true, sync: false }) },
    ]),
  );
}
