import { Writable } from 'node:stream';
import { pino } from 'pino';
import type { Logger } from '../../src/logging/logger.js';

export interface LogLine {
  level: number;
  msg?: string;
  [key: string]: unknown;
}

/** A real pino logger whose JSON lines are kept for assertions. */
export function capturedLogger(): { logger: Logger; lines: LogLine[]; messages: () => string[] } {
  const lines: LogLine[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line.trim() !== '') lines.push(JSON.parse(line) as LogLine);
      }
      done();
    },
  });
  const logger = pino({ level: 'debug' }, stream);
  return { logger, lines, messages: () => lines.map((l) => l.msg ?? '') };
}
