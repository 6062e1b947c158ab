import { isDeepStrictEqual } from 'node:util';
import { DEVICE_PATTERN, POD_PATTERN, failedPrecondition, invalidArgument } from '@outpost/shared';
import type { Device, Pod } from '@outpost/shared';
import { regionOf } from '../healthchecks/applies-to.js';
import { requireExec, type Authorize } from '../healthchecks/exec-permissions.js';
import type { ResourceHandle } from '../resources/resource-handle.js';
import type { OperationContext, ResourceRules } from '../resources/resource-rules.js';

export const nodeOf = (pod: Pod): string | undefined => {
  const node = pod.spec.node;
  return node !== undefined && node !== '' ? node : undefined;
};

/**
 * A pod's spec.node names a device of the pod's own project and region that exists (checked when the node is
 * set or changed: a pod whose device was deleted since stays editable). A pod runs its services' programs on that
 * device: creating one or changing its spec needs `devices.exec` on the region, and `devices.execAsRoot` too when
 * `spec.runAsRoot` asks for root.
 */
export function podRules(devices: ResourceHandle<Device>, authorize: Authorize): ResourceRules<Pod> {
  const checkExec = (before: Pod | undefined, after: Pod, op: OperationContext): void => {
    if (before !== undefined && isDeepStrictEqual(before.spec, after.spec)) return;
    requireExec(authorize, op, regionOf(after.name), after.spec.runAsRoot === true);
  };
  const checkNode = (before: Pod | undefined, after: Pod): void => {
    const node = nodeOf(after);
    if (node === undefined || (before !== undefined && nodeOf(before) === node)) return;
    const device = DEVICE_PATTERN.parse(node);
    if (device === null) {
      const problem = DEVICE_PATTERN.problemWithName(node)?.message ?? 'is not a device name';
      throw invalidArgument(`spec.node "${node}": ${problem}`);
    }
    const pod = POD_PATTERN.parse(after.name);
    if (pod !== null && (pod['project'] !== device['project'] || pod['region'] !== device['region'])) {
      throw invalidArgument(`spec.node "${node}" must be a device of the pod's project and region`);
    }
    if (devices.find(node) === undefined) throw failedPrecondition(`spec.node: device "${node}" does not exist`);
  };
  return {
    beforeCreate: (doc, op) => {
      checkNode(undefined, doc);
      checkExec(undefined, doc, op);
    },
    beforeUpdate: (before, after, op) => {
      checkNode(before, after);
      checkExec(before, after, op);
    },
  };
}
