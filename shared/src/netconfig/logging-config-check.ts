import type { DeviceSpec } from '../resources/devices/device.js';
import { parseByteSize } from './byte-size.js';
import type { ProblemList } from './config-problem.js';
import { childPath, quoted } from './config-problem.js';

type LoggingConfig = NonNullable<DeviceSpec['loggingConfig']>;

const UNIT_NAME = /^[A-Za-z0-9:_.@*\\-]{1,255}$/;
const MAX_UNITS = 256;
const MIN_JOURNAL_BYTES = 1024 ** 2;
const MAX_JOURNAL_BYTES = 1024 ** 4;

/** Checks `loggingConfig`: units are systemd unit names (or globs), journal sizes are sizes such as "200M". */
export function checkLoggingConfig(config: LoggingConfig, path: string, problems: ProblemList): void {
  const units = config.units ?? [];
  if (units.length > MAX_UNITS) problems.add(childPath(path, 'units'), `names more than ${MAX_UNITS} units`);
  units.slice(0, MAX_UNITS).forEach((unit, i) => {
    if (!UNIT_NAME.test(unit))
      problems.add(childPath(childPath(path, 'units'), i), `${quoted(unit)} is not a unit name`);
  });
  for (const key of ['journalSystemMaxUse', 'journalRuntimeMaxUse'] as const) {
    const value = config[key];
    if (value === undefined) continue;
    const bytes = parseByteSize(value);
    if (bytes === undefined) {
      problems.add(childPath(path, key), `${quoted(value)} is not a size such as "200M" or "1G"`);
    } else if (bytes < MIN_JOURNAL_BYTES || bytes > MAX_JOURNAL_BYTES) {
      problems.add(childPath(path, key), `${value} is out of range (1M to 1T)`);
    }
  }
}
