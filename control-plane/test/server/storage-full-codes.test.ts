import { describe, expect, it } from 'vitest';
import { PostgresError } from '../../src/resources/storage/postgres/sync-postgres.js';
import { toApiError } from '../../src/server/http-errors.js';

const fsError = (code: string): Error => Object.assign(new Error(`${code}: write failed`), { code });

describe('a write refused for lack of space', () => {
  it.each([
    [
      'PostgreSQL disk_full (SQLSTATE 53100)',
      new PostgresError('could not extend file: No space left on device', '53100'),
    ],
    ['SQLite SQLITE_FULL', fsError('SQLITE_FULL')],
    ['the file system ENOSPC', fsError('ENOSPC')],
    ['a disk quota EDQUOT', fsError('EDQUOT')],
  ])('%s is answered 503 "storage is full"', (_what, err) => {
    const answer = toApiError(err);
    expect(answer.httpCode).toBe(503);
    expect(answer.toBody()).toMatchObject({
      error: { status: 'UNAVAILABLE', message: expect.stringContaining('storage is full') as string },
    });
  });

  it.each([
    ['PostgreSQL out_of_memory (53200)', new PostgresError('out of memory', '53200')],
    ['PostgreSQL too_many_connections (53300)', new PostgresError('too many clients already', '53300')],
    ['PostgreSQL unique_violation (23505)', new PostgresError('duplicate key value', '23505')],
  ])('%s is not: a server fault, 500', (_what, err) => {
    expect(toApiError(err).httpCode).toBe(500);
  });
});
