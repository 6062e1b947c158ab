/**
 * Upgrading a PostgreSQL install of schema version 1: its releases kept API keys, device credentials, provisioning
 * tokens and metrics history in the data folder's `outpost.db` (SQLite). The upgrade to version 2 imports them in
 * its transaction and renames the file; a file that cannot be read refuses the start and changes nothing.
 */
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ResourceEngine } from '../../../src/resources/resource-engine.js';
import { openStorage } from '../../../src/resources/storage/open-storage.js';
import type { SideFileImported } from '../../../src/resources/storage/open-storage.js';
import { POSTGRES_MIGRATIONS } from '../../../src/resources/storage/postgres/pg-migrations.js';
import { PgStorage } from '../../../src/resources/storage/postgres/pg-storage.js';
import { openDatabase } from '../../../src/resources/storage/sqlite/open-database.js';
import { postgresSuiteSkipped, suitePostgres } from '../../helpers/suite-postgres.js';
import { startTestServer } from '../../helpers/test-server.js';
import {
  API_SECRET,
  expectPreviousReleaseRecords,
  PARENT,
  TOKEN,
  writePreviousReleaseStores,
} from './previous-release-stores.js';

describe.skipIf(postgresSuiteSkipped('PostgreSQL side file import'))(
  'PostgreSQL upgrade from schema 1 [postgres]',
  () => {
    const postgres = suitePostgres();
    const dirs: string[] = [];
    afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

    /**
     * A database made by the first migration only, and a data folder whose outpost.db the release of it filled; after
     * a crash of that release, its rows are still in the write-ahead log beside the file.
     */
    function schemaOneInstall(sideFile: 'previous release' | 'crashed release' | 'unreadable'): {
      url: string;
      dataDir: string;
    } {
      const url = postgres.createDatabase();
      new PgStorage(url, { migrations: POSTGRES_MIGRATIONS.slice(0, 1) }).close();
      const dataDir = mkdtempSync(join(tmpdir(), 'outpost-side-file-'));
      dirs.push(dataDir);
      const file = join(dataDir, 'outpost.db');
      if (sideFile === 'unreadable') {
        writeFileSync(file, 'not a SQLite database, but long enough to have a header');
        return { url, dataDir };
      }
      const written =
        sideFile === 'crashed release' ? join(mkdtempSync(join(tmpdir(), 'outpost-crashed-')), 'x.db') : file;
      const db = openDatabase(written); // WAL, as the release opened it
      writePreviousReleaseStores(db, true);
      if (sideFile === 'crashed release') {
        // the files as a kill -9 leaves them: the rows in the log, not yet in the database file
        copyFileSync(written, file);
        copyFileSync(`${written}-wal`, `${file}-wal`);
        expect(statSync(`${file}-wal`).size).toBeGreaterThan(0);
        dirs.push(dirname(written));
      }
      db.close();
      return { url, dataDir };
    }

    /** The schema versions recorded, read by a storage that knows the first `known` migrations. */
    const versionsOf = (url: string, known: number): unknown[] => {
      const storage = new PgStorage(url, { migrations: POSTGRES_MIGRATIONS.slice(0, known) });
      try {
        return storage.query('SELECT version FROM outpost_schema ORDER BY version').rows.flat();
      } finally {
        storage.close();
      }
    };

    it('imports the side file once, as the server opens the storage, and renames it', async () => {
      const { url, dataDir } = schemaOneInstall('previous release');
      const previousSideFile = join(dataDir, 'outpost.db');
      const imported: SideFileImported[] = [];
      const notImported: string[] = [];
      const open = () =>
        openStorage(
          { kind: 'postgres', url },
          {
            previousSideFile,
            onSideFileImported: (i) => imported.push(i),
            onSideFileNotImported: (file) => notImported.push(file),
          },
        );

      const opened = open();
      try {
        expect(imported).toEqual([
          {
            file: previousSideFile,
            renamedTo: `${previousSideFile}.imported`,
            rows: {
              iam_api_keys: 1,
              device_credentials: 1,
              device_public_keys: 1,
              provisioning_tokens: 1,
              device_metric_points: 1,
            },
          },
        ]);
        expect(existsSync(previousSideFile)).toBe(false);
        expect(existsSync(`${previousSideFile}.imported`)).toBe(true);
        expect(notImported).toEqual([]);
        expectPreviousReleaseRecords(new ResourceEngine(opened.storage), true);
      } finally {
        await opened.close();
      }
      expect(versionsOf(url, 2)).toEqual([1, 2]);

      // the import is recorded by the schema's version: the file put back is not imported again
      copyFileSync(`${previousSideFile}.imported`, previousSideFile);
      const again = open();
      try {
        expect(imported).toHaveLength(1);
        expect(notImported).toEqual([previousSideFile]);
        expect(new ResourceEngine(again.storage).stores.apiKeys.list()).toHaveLength(1);
      } finally {
        await again.close();
      }
    });

    it('imports the rows a crashed release left in the write-ahead log', async () => {
      const { url, dataDir } = schemaOneInstall('crashed release');
      const opened = openStorage({ kind: 'postgres', url }, { previousSideFile: join(dataDir, 'outpost.db') });
      try {
        expectPreviousReleaseRecords(new ResourceEngine(opened.storage), true);
      } finally {
        await opened.close();
      }
      expect(readdirSync(dataDir)).toEqual(['outpost.db.imported']);
    });

    it('a server started on the old install: its API key authenticates and its token registers a device', async () => {
      const { url, dataDir } = schemaOneInstall('previous release');
      const server = await startTestServer({}, { dataDir, config: { database: url } });
      try {
        const call = (method: string, path: string, secret: string, body?: unknown) =>
          fetch(`${server.url}/v1/${path}`, {
            method,
            headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
            ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          });
        expect((await call('GET', `${PARENT}/devices/none`, API_SECRET)).status).toBe(404);
        expect((await call('GET', `${PARENT}/devices/none`, `${API_SECRET}-not`)).status).toBe(401);
        const registered = await call('POST', `${PARENT}/devices:register`, TOKEN, { deviceId: 'after-upgrade' });
        expect(registered.status).toBe(200);
        // the token allowed two registrations and had made one: it is used up now
        const refused = await call('POST', `${PARENT}/devices:register`, TOKEN, { deviceId: 'one-too-many' });
        expect(refused.status).toBeGreaterThanOrEqual(400);
      } finally {
        await server.dispose();
      }
      expect(existsSync(join(dataDir, 'outpost.db'))).toBe(false);
    });

    it('a new database does not import an outpost.db found in the data folder (a SQLite install of its own)', async () => {
      const { dataDir } = schemaOneInstall('previous release');
      const previousSideFile = join(dataDir, 'outpost.db');
      const notImported: string[] = [];
      const opened = openStorage(
        { kind: 'postgres', url: postgres.createDatabase() },
        { previousSideFile, onSideFileNotImported: (file) => notImported.push(file) },
      );
      try {
        expect(new ResourceEngine(opened.storage).stores.apiKeys.list()).toEqual([]);
      } finally {
        await opened.close();
      }
      expect(notImported).toEqual([previousSideFile]);
      expect(existsSync(previousSideFile)).toBe(true);
    });

    it('refuses to start when the side file cannot be read, leaving the database at version 1', () => {
      const { url, dataDir } = schemaOneInstall('unreadable');
      const previousSideFile = join(dataDir, 'outpost.db');
      expect(() => openStorage({ kind: 'postgres', url }, { previousSideFile })).toThrow(
        /cannot read .*outpost\.db, where the control plane kept API keys/,
      );
      expect(versionsOf(url, 1)).toEqual([1]);
      expect(existsSync(previousSideFile)).toBe(true);
    });
  },
);
