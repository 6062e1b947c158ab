import {
  acceptedPlanDefinition,
  limitDefinition,
  limitPoolDefinition,
  organizationDefinition,
  planAssignmentDefinition,
  planAssignmentRequestDefinition,
  planDefinition,
  projectDefinition,
  serviceDefinition,
} from '@outpost/shared';
import type { AncestorsResolver } from '../iam/permission-match.js';
import type { CustomMethod } from '../resources/http/custom-method.js';
import type { ResourceEngine } from '../resources/resource-engine.js';
import { bootstrapLimits } from './bootstrap.js';
import { LimitsContext, type LimitsHandles } from './context.js';
import { HierarchyReader } from './hierarchy-reader.js';
import { meteredRules, type MeteredResource, type Metering } from './metering.js';
import { listApproverMethod } from './methods/list-approver.js';
import { migrateMethods } from './methods/migrate-methods.js';
import { reviewMethods } from './methods/review-methods.js';
import { isEntityName, ownerOf } from './names.js';
import { acceptedPlanRules, planAssignmentRules } from './rules/assignment-rules.js';
import { entityRules, type EntityPlacementCheck } from './rules/entity-rules.js';
import { systemOwnedRules } from './rules/limit-rules.js';
import { planRules } from './rules/plan-rules.js';
import { requestRules } from './rules/request-rules.js';
import { settle } from './settle.js';
import { loadWorld } from './scope.js';

export interface LimitsService extends Metering {
  handles: LimitsHandles;
  /** accept, decline, listApprover and the three migrate methods */
  customMethods: CustomMethod[];
  /** for the Authorizer: a key scoped to an organization covers everything under it */
  ancestorsOf: AncestorsResolver;
  /** creates each metered resource's service, its default plans and its own assignment on a fresh control plane */
  bootstrap(): void;
  /** recomputes the whole tree in one transaction (a repair; every write already settles what it touches) */
  settleAll(): void;
}

export interface LimitsServiceOptions {
  /**
   * Checks a caller's permission (throws PERMISSION_DENIED). Placing an organization or project under a parent,
   * by creating or moving it, needs the write's permission on that parent as well (on `*` for no parent): the
   * entity draws on the parent's quota. Without it, callers are not checked here.
   */
  authorize?: EntityPlacementCheck;
}

/** Registers the hierarchy and limits resources on the engine with their rules (spec 001). */
export function createLimitsService(engine: ResourceEngine, options: LimitsServiceOptions = {}): LimitsService {
  const ctx = new LimitsContext(engine);
  // a plan change rewrites every dependent assignment (both documents), pool and limit in one transaction
  const recomputed = { rewrittenTogether: true };
  const handles: LimitsHandles = {
    services: engine.register(serviceDefinition, entityRules(ctx, 'service')),
    organizations: engine.register(organizationDefinition, entityRules(ctx, 'organization', options.authorize)),
    projects: engine.register(projectDefinition, entityRules(ctx, 'project', options.authorize)),
    plans: engine.register(planDefinition, planRules(ctx)),
    planAssignments: engine.register(planAssignmentDefinition, planAssignmentRules(ctx), recomputed),
    acceptedPlans: engine.register(acceptedPlanDefinition, acceptedPlanRules(ctx), recomputed),
    requests: engine.register(planAssignmentRequestDefinition, requestRules(ctx)),
    pools: engine.register(limitPoolDefinition, systemOwnedRules('limitPools'), recomputed),
    limits: engine.register(limitDefinition, systemOwnedRules('limits'), recomputed),
  };
  ctx.attach(handles);
  ctx.world.build();
  return {
    handles,
    customMethods: [...reviewMethods(ctx), listApproverMethod(ctx), ...migrateMethods(ctx)],
    meter: (resource: MeteredResource) => {
      if (ctx.meters.has(resource.resource)) throw new Error(`${resource.resource} is metered twice`);
      ctx.meters.set(resource.resource, resource);
      return meteredRules(ctx, resource);
    },
    ancestorsOf: (name) => {
      const owner = ownerOf(name);
      return /^(projects|organizations)\//.test(owner) && isEntityName(owner)
        ? new HierarchyReader(ctx).ancestors(owner)
        : [];
    },
    bootstrap: () => bootstrapLimits(ctx),
    settleAll: () => engine.transaction(() => void settle(ctx, loadWorld(ctx))),
  };
}
