import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from './config.js';

export type { Logger } from 'pino';

/** Paths whose values never reach the log: bearer tokens and API key secrets. */
const REDACTED_PATHS = ['req.headers.authorization', 'headers.authorization', 'authorization', 'secret', '*.secret'];

/** A pino logger writing JSON lines to stdout (or to `destination`, for tests). */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  const options = { level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } };
  return destination ? pino(options, destination) : pino(options);
}
