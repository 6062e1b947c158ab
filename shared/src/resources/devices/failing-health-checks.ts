type Doc = Record<string, unknown>;

const isRecord = (value: unknown): value is Doc => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The condition type prefix of one health check's verdict on a device (`Healthy/<check id>`). */
const HEALTHY_PREFIX = 'Healthy/';

/**
 * The device with `status.failingHealthCheckCount` equal to how many of its `Healthy/<id>` conditions are False
 * (0 when every reported check passes; absent when the device reports none), so that one filter finds the
 * devices failing a health check (`status.failingHealthCheckCount > 0`): conditions are a list, which filters
 * cannot address. Returns the device itself when the field already holds it.
 */
export function withFailingHealthCheckCount(device: Doc): Doc {
  const status = isRecord(device['status']) ? device['status'] : undefined;
  const conditions = status && Array.isArray(status['conditions']) ? (status['conditions'] as unknown[]) : [];
  const checks = conditions.filter(
    (c): c is Doc => isRecord(c) && typeof c['type'] === 'string' && c['type'].startsWith(HEALTHY_PREFIX),
  );
  const failing = checks.length === 0 ? undefined : checks.filter((c) => c['status'] === 'False').length;
  // without a status there are no conditions: failing is undefined, as the absent field
  if (status === undefined || status['failingHealthCheckCount'] === failing) return device;
  const { failingHealthCheckCount: _previous, ...rest } = status;
  return { ...device, status: failing === undefined ? rest : { ...rest, failingHealthCheckCount: failing } };
}
