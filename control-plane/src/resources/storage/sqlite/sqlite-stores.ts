import type { Db } from './open-database.js';
import type { EngineStores } from '../stores/engine-stores.js';
import { SqliteApiKeys } from './sqlite-api-keys.js';
import { SqliteDeviceCredentials } from './sqlite-device-credentials.js';
import { SqliteMetricsSeries } from './sqlite-metrics-series.js';
import { SqliteProvisioningTokens } from './sqlite-provisioning-tokens.js';

/** The services' stores in the engine's SQLite database (their tables are made by sqlite-migrations.ts). */
export const sqliteStores = (db: Db): EngineStores => ({
  apiKeys: new SqliteApiKeys(db),
  deviceCredentials: new SqliteDeviceCredentials(db),
  provisioningTokens: new SqliteProvisioningTokens(db),
  metricsSeries: new SqliteMetricsSeries(db),
});
