import {
  ProblemList,
  changedConfigFields,
  checkDeviceConfig,
  checkUpdatePolicy,
  invalidArgument,
  problemText,
} from '@outpost/shared';
import type { Device, DeviceSpec } from '@outpost/shared';
import type { ResourceRules } from '../resources/resource-rules.js';

/**
 * Device writes carry configuration the agent will apply (netplan YAML, SSH, proxy, logging): a write whose
 * configuration is wrong is refused with INVALID_ARGUMENT naming each path and problem, and stores nothing.
 * Only the members a write changes are checked, so a value stored before these checks never blocks other writes.
 */
export const deviceConfigRules: ResourceRules<Device> = {
  beforeCreate: (doc) => refuseBadConfig(undefined, doc.spec),
  beforeUpdate: (before, after) => refuseBadConfig(before.spec, after.spec),
};

function refuseBadConfig(before: DeviceSpec | undefined, after: DeviceSpec | undefined): void {
  const problems = [
    ...checkDeviceConfig(after, changedConfigFields(before, after)),
    ...updatePolicyProblems(before, after),
  ];
  if (problems.length > 0) throw invalidArgument(`invalid device: ${problems.map(problemText).join('; ')}`);
}

/** spec.updatePolicy's problems (cron schedules, durations, time zones) when a write changes it. */
function updatePolicyProblems(before: DeviceSpec | undefined, after: DeviceSpec | undefined) {
  const policy = after?.updatePolicy;
  if (policy === undefined || JSON.stringify(before?.updatePolicy ?? null) === JSON.stringify(policy)) return [];
  const problems = new ProblemList();
  checkUpdatePolicy(policy, 'spec.updatePolicy', problems);
  return problems.problems;
}
