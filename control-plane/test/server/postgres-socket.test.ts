/**
 * `--database` on PostgreSQL over its Unix socket: the storage's connections (the engine's worker, the service
 * stores) and the cluster coordination's (locks, presence, lease keeper, artifact holds) all go through the
 * socket directory the URL names, and a restart on it reads back what was written.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Device } from '@outpost/shared';
import { SyncPostgres } from '../../src/resources/storage/postgres/sync-postgres.js';
import { loadServerConfig } from '../../src/server/config.js';
import { postgresSuiteSkipped, suitePostgres } from '../helpers/suite-postgres.js';
import { startTestServer } from '../helpers/test-server.js';

describe.skipIf(postgresSuiteSkipped('PostgreSQL over a Unix socket'))(
  '--database over a Unix socket [postgres]',
  () => {
    const postgres = suitePostgres();
    const dirs: string[] = [];
    afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

    /** A fresh database of the throwaway cluster: its TCP URL, its name, and where its socket is. */
    function freshDatabase(): { tcpUrl: string; name: string; socketDir: string; port: string } {
      const tcpUrl = postgres.createDatabase();
      const url = new URL(tcpUrl);
      const pg = new SyncPostgres(tcpUrl);
      try {
        const socketDir = String(pg.query('SHOW unix_socket_directories').rows[0]![0]).split(',')[0]!.trim();
        return { tcpUrl, name: url.pathname.slice(1), socketDir, port: url.port };
      } finally {
        pg.close();
      }
    }

    /** Client addresses of the sessions connected to database `name`, as seen over TCP: null for a socket. */
    function clientAddresses(tcpUrl: string, name: string): unknown[] {
      const pg = new SyncPostgres(tcpUrl);
      try {
        const sessions = pg.query(
          'SELECT client_addr FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
          [name],
        );
        return sessions.rows.map((row) => row[0]);
      } finally {
        pg.close();
      }
    }

    const forms: [string, (db: ReturnType<typeof freshDatabase>) => string][] = [
      ['?host=<dir>', (db) => `postgres://postgres@/${db.name}?host=${db.socketDir}&port=${db.port}`],
      [
        'the host percent-encoded',
        (db) => `postgresql://postgres@${encodeURIComponent(db.socketDir)}:${db.port}/${db.name}`,
      ],
    ];

    it.each(forms)('a device written through %s is read back after a restart', async (_form, socketUrl) => {
      const db = freshDatabase();
      const { database } = loadServerConfig(['--database', socketUrl(db)], {});
      const dataDir = mkdtempSync(join(tmpdir(), 'outpost-socket-'));
      dirs.push(dataDir);
      const name = 'projects/acme/regions/eu/devices/gw-socket';

      const first = await startTestServer({}, { dataDir, config: { database } });
      try {
        await first.admin.create('projects/acme/regions/eu', 'devices', { name, spec: { osVersion: '1.0.0' } });
        // every connection the server holds to its database came through the socket (no client address)
        const addresses = clientAddresses(db.tcpUrl, db.name);
        expect(addresses.length).toBeGreaterThanOrEqual(3); // the engine's, the coordination's, presence's at least
        expect(addresses).toEqual(addresses.map(() => null));
      } finally {
        await first.dispose();
      }

      const second = await startTestServer({}, { dataDir, config: { database } });
      try {
        expect((await second.admin.get<Device>(name)).spec?.osVersion).toBe('1.0.0');
      } finally {
        await second.dispose();
      }
    });
  },
);
