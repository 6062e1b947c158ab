/**
 * The tables of the API keys, device credentials and public keys, provisioning tokens and metrics history as the
 * releases before they moved behind the engine made them (their services' constructors), with one row each: in
 * the SQLite database itself, or, on PostgreSQL, in the side file `<data-dir>/outpost.db`.
 */
import { generateKeyPairSync } from 'node:crypto';
import { expect } from 'vitest';
import { DeviceCredentials } from '../../../src/devices/device-credentials.js';
import { ProvisioningTokens } from '../../../src/devices/provisioning-tokens.js';
import { ApiKeyStore } from '../../../src/iam/api-key-store.js';
import { MetricsHistory } from '../../../src/metrics/metrics-history.js';
import type { ResourceEngine } from '../../../src/resources/resource-engine.js';
import type { Db } from '../../../src/resources/storage/sqlite/open-database.js';
import { hashSecret } from '../../../src/devices/secret-hash.js';

export const DEVICE = 'projects/upgraded/regions/eu/devices/d1';
export const KEYED = 'projects/upgraded/regions/eu/devices/d2';
export const PARENT = 'projects/upgraded/regions/eu';
export const API_SECRET = 'opk_oldkey000001_from-the-previous-release-0123456789';
export const DEVICE_SECRET = 'odc_from-the-previous-release';
export const TOKEN = 'opt_from-the-previous-release';
export const T0 = Date.parse('2030-01-01T00:00:00Z');

/** The services' tables and rows of the previous release; tokens without use counts unless `tokenUseCounts`. */
export function writePreviousReleaseStores(db: Db, tokenUseCounts: boolean): void {
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

  const grants = JSON.stringify([{ permission: '*', scope: 'projects/upgraded' }]);
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

/** The services, on the engine's stores, know the records writePreviousReleaseStores wrote (and use the token). */
export function expectPreviousReleaseRecords(engine: ResourceEngine, tokenUseCounts: boolean): void {
  const now = (): Date => new Date(T0 + 60_000);

  const keys = new ApiKeyStore(engine.stores.apiKeys);
  expect(keys.authenticate(API_SECRET)).toEqual({
    name: 'apiKeys/oldkey000001',
    displayName: 'kept',
    grants: [{ permission: '*', scope: 'projects/upgraded' }],
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
}
