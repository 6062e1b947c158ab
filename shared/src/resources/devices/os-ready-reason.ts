type Doc = Record<string, unknown>;

const isRecord = (value: unknown): value is Doc => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The device with `status.osReadyReason` equal to the reason of its OSReady condition (absent without one),
 * so that one filter finds the devices that rolled back or failed: conditions are a list, which filters cannot
 * address. Returns the device itself when the field already holds it.
 */
export function withOsReadyReason(device: Doc): Doc {
  const status = isRecord(device['status']) ? device['status'] : undefined;
  const conditions = status && Array.isArray(status['conditions']) ? (status['conditions'] as unknown[]) : [];
  const osReady = conditions.find((c): c is Doc => isRecord(c) && c['type'] === 'OSReady');
  const reason = typeof osReady?.['reason'] === 'string' && osReady['reason'] !== '' ? osReady['reason'] : undefined;
  if (status?.['osReadyReason'] === reason) return device;
  if (status === undefined) return reason === undefined ? device : { ...device, status: { osReadyReason: reason } };
  const { osReadyReason: _previous, ...rest } = status;
  return { ...device, status: reason === undefined ? rest : { ...rest, osReadyReason: reason } };
}
