import { where } from '../resources/resource-query.js';
import type { LimitsContext } from './context.js';
import type { Limit } from './core/index.js';

/** The resource a project's devices Limit counts. */
export const DEVICES_SERVICE = 'services/devices.outpost';
export const DEVICES_RESOURCE = `${DEVICES_SERVICE}/resources/devices`;

/**
 * How many instances a new Limit finds already there (devices made before their project had a plan or listed
 * the region): usage starts from the truth, so it never drifts.
 */
export function existingUsage(ctx: LimitsContext, limit: Limit): number {
  if (limit.resource !== DEVICES_RESOURCE) return limit.usage;
  const devices = ctx.devices();
  if (!devices) return limit.usage;
  const project = limit.name.slice(0, limit.name.indexOf('/limits/'));
  return devices.count({ where: [where.parent(`${project}/regions/${limit.region}`)] });
}
