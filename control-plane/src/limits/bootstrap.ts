import type { LimitsContext } from './context.js';
import { saveAssignment } from './assignment-store.js';
import { materializeAssignment } from './core/index.js';
import { DEVICES_RESOURCE, DEVICES_SERVICE } from './usage-count.js';
import { HierarchyReader } from './hierarchy-reader.js';
import { planOf } from './records.js';
import { settle } from './settle.js';
import { loadScope } from './scope.js';

/** Devices per region of the plans a fresh control plane starts with (administrators edit them as plans). */
export const DEFAULT_DEVICE_LIMITS = { service: 1_000_000_000, organization: 100_000, project: 1_000 } as const;

/**
 * On a fresh control plane: the service `services/devices.outpost` with three plans (one per level; the
 * organization and project plans are the SMALL-tier defaults new organizations and projects get) and the
 * service's plan for itself, so that an administrator can create an organization, a project and devices at
 * once. Once the service exists nothing is touched again: what administrators changed stays.
 */
export function bootstrapLimits(ctx: LimitsContext): void {
  ctx.engine.transaction(() => {
    const h = ctx.h;
    if (h.services.find(DEVICES_SERVICE)) return;
    h.services.put({ name: DEVICES_SERVICE, displayName: 'Devices' });
    const plan = (id: string, displayName: string, planLevel: string, businessTier: string, value: number) =>
      planOf(
        h.plans.put({
          name: `${DEVICES_SERVICE}/plans/${id}`,
          displayName,
          service: DEVICES_SERVICE,
          planLevel,
          businessTier,
          resourceLimits: [{ resource: DEVICES_RESOURCE, value }],
        }),
      );
    const own = plan('service', 'Devices service', 'SERVICE', 'UNDEFINED', DEFAULT_DEVICE_LIMITS.service);
    plan('organization-small', 'Organization (small)', 'ORGANIZATION', 'SMALL', DEFAULT_DEVICE_LIMITS.organization);
    plan('project-small', 'Project (small)', 'PROJECT', 'SMALL', DEFAULT_DEVICE_LIMITS.project);
    const spec = { service: DEVICES_SERVICE, defaultRegionalPlan: own.name, regionalPlanOverrides: [], extensions: [] };
    const regions = new HierarchyReader(ctx).effectiveRegions(DEVICES_SERVICE);
    const next = materializeAssignment(spec, new Map([[own.name, own]]), regions);
    saveAssignment(ctx, { assignee: DEVICES_SERVICE, assigner: DEVICES_SERVICE, next });
    settle(ctx, loadScope(ctx, [DEVICES_SERVICE]));
  });
}
