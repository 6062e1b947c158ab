/**
 * The services' stores moved behind the engine (schema version 3): a SQLite database of the previous release,
 * whose services made their tables themselves, keeps its API keys, device credentials, provisioning tokens and
 * metrics history.
 */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/resources/storage/sqlite/open-database.js';
import type { Db } from '../../../src/resources/storage/sqlite/open-database.js';
import { DeviceCredentials } from '../../../src/devices/device-credentials.js';
import { ProvisioningTokens } from '../../../src/devices/provisioning-tokens.js';
import { hashSecret } from '../../../src/devices/secret-hash.js';
import { ApiKeyStore } from '../../../src/iam/api-key-store.js';
import { MetricsHistory } from '../../../src/metrics/metrics-history.js';
import { ResourceEngine } from '../../../src/resources/resource-engine.js';
import { migrateSqlite, SQLITE_MIGRATIONS } from '../../../src/resources/storage/sqlite/sqlite-migrations.js';
import { tempDatabases } from '../../helpers/temp-databases.js';

const DEVICE = 'projects/p/regions/r/devices/d1';
const KEYED = 'projects/p/regions/r/devices/d2';
const PARENT = 'projects/p/regions/r';
const API_SECRET = 'opk_oldkey000001_from-the-previous-release-0123456789';
const DEVICE_SECRET = 'odc_from-the-previous-release';
const TOKEN = 'opt_from-the-previous-release';
const T0 = Date.parse('2030-01-01T00:00:00Z');

/** The tables as the previous release's services made them (their constructors), at schema version 2. */
function previousRelease(db: Db, tokenUseCounts: boolean): void {
  migrateSqlite(
    db,
    SQLITE_MIGRATIONS.filter((m) => m.version <= 2),
  );
  db.exec(`CREATE TABLE iam_api_keys (
      id TEXT PRIMARY KEY, display_name TEXT NOT NULL, grants_json TEXT NOT NULL, secret_sha256 BLOB NOT NULL,
      create_time TEXT NOT NULL) STRICT`);
  db.exec(`CREATE TABLE device_credentials (
      device TEXT PRIMARY KEY, secret_sha256 BLOB NOT NULL UNIQUE, create_time TEXT NOT NULL)`);
  db.exec(`CREATE TABLE device_public_keys (
      device TEXT PRIMARY KEY, public_key_pem TEXT NOT NULL, create_time TEXT NOT NULL)`);
  db.exec(`CREATE TABLE provisioning_tokens (
      secret_sha256 BLOB PRIMARY KEY, parent TEXT NOT NULL, create_time TEXT NOT NULL, expire_time TEXT NOT NULL
      ${tokenUseCounts ? ', max_uses INTEGER, uses INTEGER NOT NULL DEFAULT 0' : ''})`);
  db.exec('CREATE INDEX provisioning_tokens_by_expiry ON provisioning_tokens(expire_time)');
  db.exec(`CREATE TABLE device_metric_points (
      device TEXT NOT NULL, resolution_ms INTEGER NOT NULL, bucket INTEGER NOT NULL, count INTEGER NOT NULL,
      cpu_sum REAL NOT NULL, cpu_max REAL NOT NULL, mem_used_sum REAL NOT NULL, mem_total_max REAL NOT NULL,
      storage_used_sum REAL NOT NULL, storage_total_max REAL NOT NULL, temp_sum REAL NOT NULL,
      temp_count INTEGER NOT NULL, load_sum REAL NOT NULL, load_count INTEGER NOT NULL, uptime_max REAL NOT NULL,
      PRIMARY KEY (device, resolution_ms, bucket)) WITHOUT ROWID`);

  const grants = JSON.stringify([{ permission: '*', scope: 'projects/p' }]);
  db.prepare('INSERT INTO iam_api_keys VALUES (?, ?, ?, ?, ?)').run(
    'oldkey000001',
    'kept',
    grants,
    hashSecret(API_SECRET),
    '2029-12-31T00:00:00.000Z',
  );
  db.prepare('INSERT INTO device_credentials VALUES (?, ?, ?)').run(DEVICE, hashSecret(DEVICE_SECRET), 'then');
  const pem = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
  db.prepare('INSERT INTO device_public_keys VALUES (?, ?, ?)').run(KEYED, pem, 'then');
  const token = [hashSecret(TOKEN), PARENT, '2030-01-01T00:00:00.000Z', '2030-01-02T00:00:00.000Z'];
  if (tokenUseCounts) {
    db.prepare('INSERT INTO provisioning_tokens VALUES (?, ?, ?, ?, ?, ?)').run(...token, 2, 1);
  } else {
    db.prepare('INSERT INTO provisioning_tokens VALUES (?, ?, ?, ?)').run(...token);
  }
  db.prepare('INSERT INTO device_metric_points VALUES (?, 0, ?, 2, 30, 20, 2000, 1000, 300, 800, 0, 0, 1, 2, 9)').run(
    DEVICE,
    T0,
  );
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
        const now = (): Date => new Date(T0 + 60_000);

        const keys = new ApiKeyStore(engine.stores.apiKeys);
        expect(keys.authenticate(API_SECRET)).toEqual({
          name: 'apiKeys/oldkey000001',
          displayName: 'kept',
          grants: [{ permission: '*', scope: 'projects/p' }],
        });
        const credentials = new DeviceCredentials(engine.stores.deviceCredentials, now);
        expect(credentials.deviceOf(DEVICE_SECRET)).toBe(DEVICE);
        expect(credentials.hasPublicKey(KEYED)).toBe(true);

        const tokens = new ProvisioningTokens(engine.stores.provisioningTokens, now);
        expect(tokens.verify(TOKEN)).toMatchObject(tokenUseCounts ? { uses: 1, maxUses: 2 } : { uses: 0 });
        expect(tokens.consume(TOKEN)).toBe(true);
        expect(tokens.consume(TOKEN)).toBe(!tokenUseCounts);

        const history = new MetricsHistory(engine.stores.metricsSeries, { retentionDays: 30 });
        const series = history.query({ device: DEVICE, fromMs: T0, toMs: T0 + 1, stepMs: 1000, nowMs: T0 + 1 });
        expect(series.points).toEqual([
          expect.objectContaining({ samples: 2, cpuPercent: 15, cpuPercentMax: 20, load1: 0.5, uptimeSeconds: 9 }),
        ]);
      } finally {
        reopened.close();
      }
    });
  }
});
