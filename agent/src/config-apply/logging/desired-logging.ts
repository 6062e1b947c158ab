import { checkLoggingConfig, deviceSpecSchema } from '@outpost/shared';
import type { DeviceSpec } from '@outpost/shared';
import { checkedPart } from '../checked-part.js';
import { contentHash } from '../part-store.js';

export type LoggingConfig = NonNullable<DeviceSpec['loggingConfig']>;

/** What the logging part takes from the device's spec (which reaches the agent loosely typed). */
export type DesiredLogging =
  { ok: true; hash: string; config: LoggingConfig | undefined } | { ok: false; hash: string; error: string };

const loggingConfigSchema = deviceSpecSchema.shape.loggingConfig.unwrap();

/** `spec.loggingConfig`, checked by the agent with the control plane's own rules (unit names, journal sizes). */
export function desiredLogging(spec: Record<string, unknown>): DesiredLogging {
  const raw = spec.loggingConfig;
  const hash = contentHash(raw);
  if (raw === undefined || raw === null) return { ok: true, hash, config: undefined };
  const checked = checkedPart(raw, loggingConfigSchema, 'loggingConfig', checkLoggingConfig);
  return checked.ok ? { ok: true, hash, config: checked.value } : { ok: false, hash, error: checked.error };
}
