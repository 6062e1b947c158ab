import { isDeepStrictEqual } from 'node:util';
import type { HealthCheck } from '@outpost/shared';
import type { OperationContext, ResourceRules } from '../resources/resource-rules.js';
import { regionOf } from './applies-to.js';
import { requireExec, type Authorize } from './exec-permissions.js';

/**
 * Creating a COMMAND check, or changing the spec of one (its argv, its selector: what runs where), needs
 * `devices.exec` on the check's region, and `devices.execAsRoot` too when it asks for root. Other check types and
 * edits that leave a COMMAND check's spec alone (display name, labels) need only the `healthChecks.*` permission
 * the API checks.
 */
export function healthCheckRules(authorize: Authorize): ResourceRules<HealthCheck> {
  const check = (before: HealthCheck | undefined, after: HealthCheck, op: OperationContext): void => {
    if (after.spec.type !== 'COMMAND') return;
    if (before !== undefined && isDeepStrictEqual(before.spec, after.spec)) return;
    requireExec(authorize, op, regionOf(after.name), after.spec.command?.runAsRoot === true);
  };
  return {
    beforeCreate: (doc, op) => check(undefined, doc, op),
    beforeUpdate: (before, after, op) => check(before, after, op),
  };
}
