import type { EngineStores } from '../stores/engine-stores.js';
import { PgApiKeys } from './pg-api-keys.js';
import { PgDeviceCredentials } from './pg-device-credentials.js';
import { PgMetricsSeries } from './pg-metrics-series.js';
import type { PgStorage } from './pg-storage.js';
import { PgProvisioningTokens } from './pg-provisioning-tokens.js';

/** The services' stores in the engine's PostgreSQL database (their tables are made by pg-migrations.ts). */
export const pgStores = (storage: PgStorage): EngineStores => ({
  apiKeys: new PgApiKeys(storage),
  deviceCredentials: new PgDeviceCredentials(storage),
  provisioningTokens: new PgProvisioningTokens(storage),
  metricsSeries: new PgMetricsSeries(storage),
});
