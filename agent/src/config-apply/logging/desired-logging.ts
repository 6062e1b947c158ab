import { ProblemList, checkLoggingConfig, deviceSpecSchema, problemText } from '@outpost/shared';
import type { DeviceSpec } from '@outpost/shared';
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
  const parsed = loggingConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, hash, error: `loggingConfig.${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}` };
  }
  const problems = new ProblemList();
  checkLoggingConfig(parsed.data, 'loggingConfig', problems);
  if (!problems.empty) return { ok: false, hash, error: problems.problems.map(problemText).join('; ') };
  return { ok: true, hash, config: parsed.data };
}
