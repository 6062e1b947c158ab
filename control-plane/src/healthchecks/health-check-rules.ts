import { isDeepStrictEqual } from 'node:util';
import type { OperationContext, ResourceRules } from '../resources/resource-rules.js';
import type { Doc } from '../resources/resource-table.js';
import { regionOf } from './applies-to.js';
import { requireExec, type Authorize } from './exec-permissions.js';

const specOf = (check: Doc): Doc => (check['spec'] ?? {}) as Doc;

/** A COMMAND check runs its argv on every device it applies to; `command.runAsRoot` asks for root. */
const commandOf = (check: Doc): Doc | undefined =>
  specOf(check)['type'] === 'COMMAND' ? ((specOf(check)['command'] ?? {}) as Doc) : undefined;

/**
 * Creating a COMMAND check, or changing the spec of one (its argv, its selector: what runs where), needs
 * `devices.exec` on the check's region, and `devices.execAsRoot` too when it asks for root. Other check types and
 * edits that leave a COMMAND check's spec alone (display name, labels) need only the `healthChecks.*` permission
 * the API checks.
 */
export function healthCheckRules(authorize: Authorize): ResourceRules {
  const check = (before: Doc | undefined, after: Doc, op: OperationContext): void => {
    const command = commandOf(after);
    if (command === undefined) return;
    if (before !== undefined && isDeepStrictEqual(specOf(before), specOf(after))) return;
    requireExec(authorize, op, regionOf(after['name'] as string), command['runAsRoot'] === true);
  };
  return {
    beforeCreate: (doc, op) => check(undefined, doc, op),
    beforeUpdate: (before, after, op) => check(before, after, op),
  };
}
