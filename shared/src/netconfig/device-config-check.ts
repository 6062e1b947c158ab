import type { DeviceSpec } from '../resources/devices/device.js';
import type { ConfigProblem } from './config-problem.js';
import { ProblemList, problemText } from './config-problem.js';
import { checkLoggingConfig } from './logging-config-check.js';
import { parseNetplan } from './netplan/netplan-check.js';
import { checkProxyConfig } from './proxy-config-check.js';
import { checkSshConfig } from './ssh-config-check.js';

/** The spec members whose meaning is checked here, each on its own. */
export const CHECKED_CONFIG_FIELDS = ['netplanYamlConfig', 'sshConfig', 'proxyConfig', 'loggingConfig'] as const;
export type CheckedConfigField = (typeof CHECKED_CONFIG_FIELDS)[number];

/** At most this many problems are reported at once: enough to fix, short enough to read. */
const MAX_REPORTED = 10;

/**
 * What is wrong with a device spec's configuration (netplan YAML, SSH, proxy, logging), each problem's path
 * starting at `spec.`. With `fields`, only those members are checked: a write checks what it changes, so a
 * value stored before these checks existed never blocks an unrelated write.
 */
export function checkDeviceConfig(
  spec: DeviceSpec | undefined,
  fields: readonly CheckedConfigField[] = CHECKED_CONFIG_FIELDS,
): ConfigProblem[] {
  const problems = new ProblemList();
  if (spec === undefined) return [];
  if (fields.includes('netplanYamlConfig') && spec.netplanYamlConfig !== undefined) {
    // empty means no Outpost network configuration (the device keeps its own)
    if (spec.netplanYamlConfig.trim() !== '') {
      const parsed = parseNetplan(spec.netplanYamlConfig);
      if (!parsed.ok) {
        for (const problem of parsed.problems) problems.add('spec.netplanYamlConfig', problemText(problem));
      }
    }
  }
  if (fields.includes('sshConfig') && spec.sshConfig !== undefined) {
    checkSshConfig(spec.sshConfig, 'spec.sshConfig', problems);
  }
  if (fields.includes('proxyConfig') && spec.proxyConfig !== undefined) {
    checkProxyConfig(spec.proxyConfig, 'spec.proxyConfig', problems);
  }
  if (fields.includes('loggingConfig') && spec.loggingConfig !== undefined) {
    checkLoggingConfig(spec.loggingConfig, 'spec.loggingConfig', problems);
  }
  return problems.problems.slice(0, MAX_REPORTED);
}

/** The checked members that differ between two specs (all of them when there is no earlier one). */
export function changedConfigFields(
  before: DeviceSpec | undefined,
  after: DeviceSpec | undefined,
): CheckedConfigField[] {
  return CHECKED_CONFIG_FIELDS.filter(
    (field) => JSON.stringify(before?.[field] ?? null) !== JSON.stringify(after?.[field] ?? null),
  );
}
