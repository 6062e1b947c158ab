import type { LimitsContext } from './context.js';
import type { Limit } from './core/index.js';

/**
 * How many instances a new Limit finds already there (made before their project had a plan or listed the
 * region): usage starts from the truth, so it never drifts. Resources nobody registered as metered keep the
 * usage the Limit has.
 */
export function existingUsage(ctx: LimitsContext, limit: Limit): number {
  const meter = ctx.meters.get(limit.resource);
  if (!meter) return limit.usage;
  const project = limit.name.slice(0, limit.name.indexOf('/limits/'));
  return meter.countIn({ project, region: limit.region });
}
