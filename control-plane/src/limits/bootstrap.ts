import type { BusinessTierName, PlanLevelName } from '@outpost/shared';
import type { LimitsContext } from './context.js';
import { saveAssignment } from './assignment-store.js';
import { materializeAssignment } from './core/index.js';
import { HierarchyReader } from './hierarchy-reader.js';
import type { MeteredResource } from './metering.js';
import { planOf } from './records.js';
import { settle } from './settle.js';
import { loadScope } from './scope.js';

/**
 * On a fresh control plane, for each metered resource with default limits: its service (e.g.
 * `services/devices.outpost`) with three plans (one per level; the organization and project plans are the
 * SMALL-tier defaults new organizations and projects get) and the service's plan for itself, so that an
 * administrator can create an organization, a project and instances at once. Once the service exists nothing
 * is touched again: what administrators changed stays.
 */
export function bootstrapLimits(ctx: LimitsContext): void {
  for (const meter of ctx.meters.values()) {
    if (meter.defaultLimits) bootstrapService(ctx, meter, meter.defaultLimits);
  }
}

function bootstrapService(
  ctx: LimitsContext,
  meter: MeteredResource,
  limits: NonNullable<MeteredResource['defaultLimits']>,
): void {
  const service = meter.service;
  ctx.engine.transaction(() => {
    const h = ctx.h;
    if (h.services.find(service)) return;
    h.services.put({ name: service, displayName: meter.serviceDisplayName });
    const plan = (
      id: string,
      displayName: string,
      planLevel: PlanLevelName,
      businessTier: BusinessTierName,
      value: number,
    ) =>
      planOf(
        h.plans.put({
          name: `${service}/plans/${id}`,
          displayName,
          service,
          planLevel,
          businessTier,
          resourceLimits: [{ resource: meter.resource, value }],
        }),
      );
    const own = plan('service', `${meter.serviceDisplayName} service`, 'SERVICE', 'UNDEFINED', limits.service);
    plan('organization-small', 'Organization (small)', 'ORGANIZATION', 'SMALL', limits.organization);
    plan('project-small', 'Project (small)', 'PROJECT', 'SMALL', limits.project);
    const spec = { service, defaultRegionalPlan: own.name, regionalPlanOverrides: [], extensions: [] };
    const regions = new HierarchyReader(ctx).effectiveRegions(service);
    const next = materializeAssignment(spec, new Map([[own.name, own]]), regions);
    saveAssignment(ctx, { assignee: service, assigner: service, next });
    settle(ctx, loadScope(ctx, [service]));
  });
}
