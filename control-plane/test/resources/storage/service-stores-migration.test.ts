/**
 * The services' stores moved behind the engine (schema version 3): a SQLite database of the previous release,
 * whose services made their tables themselves, keeps its API keys, device credentials, provisioning tokens and
 * metrics history.
 */
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/resources/storage/sqlite/open-database.js';
import type { Db } from '../../../src/resources/storage/sqlite/open-database.js';
import { ResourceEngine } from '../../../src/resources/resource-engine.js';
import { migrateSqlite, SQLITE_MIGRATIONS } from '../../../src/resources/storage/sqlite/sqlite-migrations.js';
import { tempDatabases } from '../../helpers/temp-databases.js';
import { expectPreviousReleaseRecords, writePreviousReleaseStores } from './previous-release-stores.js';

/** The tables as the previous release's services made them (their constructors), at schema version 2. */
function previousRelease(db: Db, tokenUseCounts: boolean): void {
  migrateSqlite(
    db,
    SQLITE_MIGRATIONS.filter((m) => m.version <= 2),
  );
  writePreviousReleaseStores(db, tokenUseCounts);
}

describe('the services’ stores on a SQLite database of the previous release', () => {
  const freshDatabase = tempDatabases('outpost-store-migration-');

  for (const tokenUseCounts of [true, false]) {
    it(`keep their records${tokenUseCounts ? '' : ' (tokens from before use counts stay unlimited)'}`, () => {
      const { db, file } = freshDatabase();
      previousRelease(db, tokenUseCounts);
      db.close();

      const reopened = openDatabase(file);
      try {
        const engine = new ResourceEngine(reopened);
        expect(reopened.pragma('user_version', { simple: true })).toBe(
          Math.max(...SQLITE_MIGRATIONS.map((m) => m.version)),
        );
        expectPreviousReleaseRecords(engine, tokenUseCounts);
      } finally {
        reopened.close();
      }
    });
  }
});
