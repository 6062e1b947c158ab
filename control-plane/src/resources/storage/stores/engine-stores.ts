import type { ApiKeyRecords } from './api-key-records.js';
import type { DeviceCredentialRecords } from './device-credential-records.js';
import type { MetricsSeriesRecords } from './metrics-series-records.js';
import type { ProvisioningTokenRecords } from './provisioning-token-records.js';

/**
 * The services' records that are not resources (secrets looked up by hash, a time series), kept by the engine's
 * storage beside the resources: in SQLite or PostgreSQL, whichever `--database` chose, so that every replica
 * sharing a PostgreSQL database sees the same. Each call is one statement or one transaction of its own, or
 * joins the engine's transaction when one is open.
 */
export interface EngineStores {
  apiKeys: ApiKeyRecords;
  deviceCredentials: DeviceCredentialRecords;
  provisioningTokens: ProvisioningTokenRecords;
  metricsSeries: MetricsSeriesRecords;
}
