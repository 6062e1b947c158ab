import type { OperationContext } from '../resources/resource-rules.js';

/**
 * Running a program on the devices of a region (COMMAND health checks, pods): code execution, so a permission of
 * its own that no `healthChecks.*` or `pods.*` grant covers.
 */
export const EXEC_PERMISSION = 'services/devices.outpost/permissions/devices.exec';

/** Running it as root instead of the agent's unprivileged workload user (needed besides EXEC_PERMISSION). */
export const EXEC_AS_ROOT_PERMISSION = 'services/devices.outpost/permissions/devices.execAsRoot';

/** The API's check: throws PERMISSION_DENIED naming the missing permission. */
export type Authorize = (principal: unknown, permission: string, resourceName: string) => void;

/**
 * Refuses a caller that may not run programs on the devices of `region` (as root when `asRoot`). Writes by the
 * control plane itself are not checked: they never change what a device runs.
 */
export function requireExec(authorize: Authorize, op: OperationContext, region: string, asRoot: boolean): void {
  if (op.system || op.principal === undefined) return;
  authorize(op.principal, EXEC_PERMISSION, region);
  if (asRoot) authorize(op.principal, EXEC_AS_ROOT_PERMISSION, region);
}
