import { DEVICE_PATTERN, failedPrecondition, resourceExhausted } from '@outpost/shared';
import type { ResourceRules } from '../resources/resource-rules.js';
import type { LimitsContext } from './context.js';
import { limitName, needsSettling, release, tryConsume } from './core/index.js';
import { regionsOf } from './records.js';
import { limitOf } from './records.js';
import { refreshPendingReasonsOf } from './pending-reasons.js';
import { settle } from './settle.js';
import { loadScope } from './scope.js';

import { DEVICES_RESOURCE, DEVICES_SERVICE } from './usage-count.js';

export { DEVICES_RESOURCE, DEVICES_SERVICE };

/**
 * The devices service as the first client of the limits service: a device takes one from its project's
 * devices Limit in its region when created (RESOURCE_EXHAUSTED beyond activeLimit) and gives it back when
 * deleted. Both run inside the device write's transaction, so usage never drifts, and so do the reasons of the
 * project's pending requests that speak of it. A device of a project that does not exist as a resource is not
 * metered; one in a region its project does not list is refused.
 */
export function deviceLimitRules(ctx: LimitsContext): ResourceRules {
  return {
    beforeCreate: (doc) => {
      const place = placeOf(String(doc['name']));
      if (!place) return;
      const project = ctx.h.projects.find(place.project);
      if (!project) return;
      if (!regionsOf(project).includes(place.region)) {
        throw failedPrecondition(
          `${place.project} is not in region ${place.region} (its regions: ${regionsOf(project).join(', ') || 'none'}); add the region to the project first`,
        );
      }
      const name = limitName(place.project, place.region, DEVICES_RESOURCE);
      const stored = ctx.h.limits.find(name);
      if (!stored) {
        throw resourceExhausted(
          `${place.project} has no devices limit in region ${place.region}: it needs a plan for ${DEVICES_SERVICE}`,
        );
      }
      const result = tryConsume(limitOf(stored), 1);
      if (!result.ok) throw resourceExhausted(result.reason);
      ctx.h.limits.patch(name, (limit) => ({ ...limit, usage: result.limit.usage }));
      refreshPendingReasonsOf(ctx, new Set([place.project]));
    },
    afterDelete: (doc) => {
      const place = placeOf(String(doc['name']));
      if (!place) return;
      const name = limitName(place.project, place.region, DEVICES_RESOURCE);
      const stored = ctx.h.limits.find(name);
      if (!stored) return;
      const released = release(limitOf(stored), 1);
      ctx.h.limits.patch(name, (limit) => ({ ...limit, usage: released.usage }));
      if (!ctx.h.projects.find(place.project)) return;
      if (needsSettling(released)) settle(ctx, loadScope(ctx, [place.project]));
      else refreshPendingReasonsOf(ctx, new Set([place.project]));
    },
  };
}

function placeOf(device: string): { project: string; region: string } | undefined {
  const ids = DEVICE_PATTERN.parse(device);
  if (!ids?.['project'] || !ids['region']) return undefined;
  return { project: `projects/${ids['project']}`, region: ids['region'] };
}
