import { failedPrecondition, invalidArgument, type PlanResource } from '@outpost/shared';
import type { ResourceRules } from '../../resources/resource-rules.js';
import type { LimitsContext } from '../context.js';
import { entityKind, nextPlanGeneration, parseResourceRef } from '../core/index.js';
import { HierarchyReader } from '../hierarchy-reader.js';
import { ownerOf } from '../names.js';
import { refreshPendingReasonsNaming } from '../pending-reasons.js';
import { assignmentsUsingPlan, settlePlanDependents } from '../plan-dependents.js';
import { planOf } from '../records.js';

/**
 * Plans: a service's plans are for that service; an organization's plans name their service and serve the
 * entities under the organization. generation starts at 1 and grows with every change of resourceLimits,
 * which every assignment using the plan then applies (with its pools and limits) in the same transaction;
 * the pending requests asking for a plan that changed or went have their reasons judged again.
 */
export function planRules(ctx: LimitsContext): ResourceRules<PlanResource> {
  const check = (doc: PlanResource): PlanResource => {
    const reader = new HierarchyReader(ctx);
    const owner = ownerOf(doc.name);
    const ownerIsService = entityKind(owner) === 'service';
    const service = doc.service || (ownerIsService ? owner : serviceOfLimits(doc));
    if (!/^services\/[^/]+$/.test(service))
      throw invalidArgument('service is required: services/{service} (or resourceLimits of one service)');
    if (ownerIsService && service !== owner)
      throw invalidArgument(`a plan of ${owner} is for ${owner}, not ${service}`);
    if (!reader.entity(owner)) throw failedPrecondition(`${owner} does not exist`);
    if (!ctx.h.services.find(service)) throw failedPrecondition(`service ${service} does not exist`);
    const seen = new Set<string>();
    (doc.resourceLimits ?? []).forEach(({ resource }, i) => {
      const ref = parseResourceRef(resource);
      if (ref.service !== service)
        throw invalidArgument(`resourceLimits[${i}]: ${resource} is not a resource of ${service}`);
      if (seen.has(resource)) throw invalidArgument(`resourceLimits names ${resource} twice`);
      seen.add(resource);
    });
    return { ...doc, service };
  };
  /** An organization's plan without `service` is for the service of its resources when they share one. */
  const serviceOfLimits = (doc: PlanResource): string => {
    const services = new Set(
      (doc.resourceLimits ?? []).map(({ resource }) => {
        return /^services\/[^/]+\/resources\/[^/]+$/.test(resource) ? ownerOf(resource) : '';
      }),
    );
    const only = [...services][0];
    return services.size === 1 && only ? only : '';
  };
  return {
    beforeCreate: (doc) => ({ ...check(doc), generation: 1 }),
    beforeUpdate: (before, after, op) => {
      const checked = op.system ? after : check(after);
      return { ...checked, generation: nextPlanGeneration(planOf(before), planOf(checked)) };
    },
    afterUpdate: (before, after) => {
      if (before.generation !== after.generation) settlePlanDependents(ctx, after.name);
      refreshPendingReasonsNaming(ctx, after.name);
    },
    beforeDelete: (doc) => {
      const users = assignmentsUsingPlan(ctx, doc.name);
      const first = users[0];
      if (first) {
        throw failedPrecondition(`plan ${doc.name} is in use by ${users.length} assignment(s), e.g. ${first.name}`);
      }
    },
    afterDelete: (doc) => refreshPendingReasonsNaming(ctx, doc.name),
  };
}
