import { isDeepStrictEqual } from 'node:util';
import { failedPrecondition, ID_RULES, invalidArgument, isValidId, permissionOf } from '@outpost/shared';
import type { OperationContext, ResourceRules } from '../../resources/resource-rules.js';
import { saveAssignment } from '../assignment-store.js';
import { childrenOf, countBy, type EntityDoc, type LimitsContext } from '../context.js';
import { entityKind } from '../core/index.js';
import { assignDefaultPlans } from '../default-plans.js';
import { HierarchyReader } from '../hierarchy-reader.js';
import { ownerOf } from '../names.js';
import { limitOf, regionsOf, storedAssignmentOf } from '../records.js';
import { settle } from '../settle.js';
import { loadScope } from '../scope.js';

/**
 * Services, organizations and projects. A new organization or project gets the default plans of its level
 * and its pools or limits at once (refused when its parent cannot back them). A change of regions extends
 * the accepted plans of the entity and of everything above it into new regions (and out of dropped ones); a
 * change of parent moves its accepted plans to the new assigner. Deleting one deletes its plan assignments,
 * accepted plans, requests and plans, which returns its limits to the parent pools.
 */
export function entityRules(
  ctx: LimitsContext,
  kind: 'service' | 'organization' | 'project',
  authorize?: EntityPlacementCheck,
): ResourceRules<EntityDoc> {
  /** The caller's write permission is checked on the entity by the API; its parent's quota needs it there too. */
  const checkPlacement = (doc: EntityDoc, verb: 'create' | 'update', op: OperationContext): void => {
    if (!authorize || op.system || op.principal === undefined) return;
    const permission = permissionOf(new HierarchyReader(ctx).handleOf(doc.name).def, verb);
    authorize(op.principal, permission, parentOf(doc) || '*');
  };

  const check = (doc: EntityDoc, stored: EntityDoc | undefined): EntityDoc => {
    const reader = new HierarchyReader(ctx);
    const name = doc.name;
    const regions = regionsOf(doc);
    regions.forEach((region, i) => {
      if (!isValidId(ID_RULES.device, region)) {
        throw invalidArgument(
          `regions[${i}]: invalid region id "${region}": must match ${ID_RULES.device.pattern.source}`,
        );
      }
    });
    if (new Set(regions).size !== regions.length) throw invalidArgument('regions lists a region twice');
    if (kind !== 'service') {
      const parent = parentOf(doc);
      if (parent !== '') {
        if (entityKind(parent) !== 'organization' || !/^organizations\/[^/]+$/.test(parent)) {
          throw invalidArgument(`parentOrganization must look like organizations/{organization}, not "${parent}"`);
        }
        if (!reader.entity(parent)) throw failedPrecondition(`parent organization ${parent} does not exist`);
        if (parent === name || reader.ancestors(parent).includes(name)) {
          throw failedPrecondition(`${parent} lies under ${name}: an organization cannot be its own ancestor`);
        }
      }
    }
    if (stored && kind === 'project') {
      const kept = new Set(regions);
      for (const limit of childrenOf(ctx.h.limits, name).map(limitOf)) {
        if (!kept.has(limit.region) && limit.usage > 0) {
          throw failedPrecondition(`${name} still has ${limit.usage} of ${limit.resource} in region ${limit.region}`);
        }
      }
    }
    return doc;
  };

  return {
    beforeCreate: (doc, op) => {
      if (kind !== 'service') checkPlacement(doc, 'create', op);
      return check(doc, undefined);
    },
    afterCreate: (doc) => {
      const name = doc.name;
      if (kind !== 'service') assignDefaultPlans(ctx, new HierarchyReader(ctx), doc);
      settle(ctx, loadScope(ctx, [name]));
    },
    beforeUpdate: (before, after, op) => {
      if (kind !== 'service' && parentOf(before) !== parentOf(after)) {
        checkPlacement(after, 'update', op);
      }
      return check(after, before);
    },
    afterUpdate: (before, after) => {
      const name = after.name;
      const oldParent = parentOf(before);
      const moved = oldParent !== parentOf(after);
      if (!moved && isDeepStrictEqual(regionsOf(before), regionsOf(after))) return;
      if (moved) relocate(ctx, name);
      settle(ctx, loadScope(ctx, oldParent ? [name, oldParent] : [name]));
    },
    beforeDelete: (doc) => {
      const name = doc.name;
      if (kind === 'organization') {
        const child = new HierarchyReader(ctx).children(name)[0];
        if (child) throw failedPrecondition(`${name} still has ${child} under it`);
      }
      if (kind === 'project') {
        const used = childrenOf(ctx.h.limits, name)
          .map(limitOf)
          .find((limit) => limit.usage > 0);
        if (used)
          throw failedPrecondition(`${name} still has ${used.usage} of ${used.resource} in region ${used.region}`);
      }
      if (kind === 'service') {
        const plans = countBy(ctx.h.plans, 'service', name);
        const assigned =
          countBy(ctx.h.planAssignments, 'service', name) - childrenOf(ctx.h.planAssignments, name).length;
        if (plans > 0 || assigned > 0) {
          throw failedPrecondition(
            `${name} still has ${plans} plan(s) and ${assigned} assignment(s) of other entities`,
          );
        }
      }
    },
    afterDelete: (doc) => {
      const name = doc.name;
      const h = ctx.h;
      for (const pa of childrenOf(h.planAssignments, name)) {
        h.planAssignments.remove(pa.name);
        if (pa.source) h.acceptedPlans.remove(pa.source);
      }
      for (const ap of childrenOf(h.acceptedPlans, name)) h.acceptedPlans.remove(ap.name);
      for (const request of childrenOf(h.requests, name)) h.requests.remove(request.name);
      for (const plan of childrenOf(h.plans, name)) h.plans.remove(plan.name);
      settle(ctx, loadScope(ctx, [], { removed: [doc] }));
    },
  };
}

/** The parent organization an organization or project names ('' under the services, and for a service). */
const parentOf = (doc: EntityDoc): string => ('parentOrganization' in doc && doc.parentOrganization) || '';

/** Throws PERMISSION_DENIED unless the caller holds `permission` on `resourceName`. */
export type EntityPlacementCheck = (principal: unknown, permission: string, resourceName: string) => void;

/**
 * After a move: the entity's accepted plans go to its new assigner, and its pending requests name the new
 * approver. The tree is settled by the caller (the new parent's pools must back it).
 */
function relocate(ctx: LimitsContext, entity: string): void {
  const reader = new HierarchyReader(ctx);
  const assignerFor = (service: string): string => reader.parentOf(entity) ?? service;
  for (const pa of childrenOf(ctx.h.planAssignments, entity)) {
    const assignment = storedAssignmentOf(pa);
    if (ownerOf(pa.source ?? '') === assignerFor(assignment.service)) continue;
    saveAssignment(ctx, { assignee: entity, assigner: assignerFor(assignment.service), next: assignment, current: pa });
  }
  for (const request of childrenOf(ctx.h.requests, entity)) {
    if (request.status?.conclusion !== 'PENDING') continue;
    ctx.h.requests.patch(request.name, (doc) => ({ ...doc, approver: assignerFor(doc.service ?? '') }));
  }
}
