import {
  invalidArgument,
  limitDefinition,
  limitPoolDefinition,
  notFound,
  permissionOf,
  planAssignmentDefinition,
} from '@outpost/shared';
import type { CustomMethod } from '../../resources/http/custom-method.js';
import { isDocument } from '../../resources/doc-utils.js';
import type { ResourceHandle } from '../../resources/resource-handle.js';
import type { Doc } from '../../resources/resource-table.js';
import { saveAssignment } from '../assignment-store.js';
import type { LimitsContext } from '../context.js';
import { HierarchyReader } from '../hierarchy-reader.js';
import { ownerOf } from '../names.js';
import { storedAssignmentOf } from '../records.js';
import { settle } from '../settle.js';
import { loadScope } from '../scope.js';

/**
 * MigrateLimitSource, MigrateLimitPoolSource and MigratePlanAssignment. Outpost settles a move (a project or
 * organization changing its parent organization) in the same transaction as the move, so after any committed
 * write these find nothing to do; they re-derive one resource from the current hierarchy and answer it:
 * a Limit's or LimitPool's source becomes the pool of its owner's current parent (capacity-checked), and a
 * PlanAssignment's AcceptedPlan moves to the assignee's current assigner. They are idempotent repairs (after
 * restoring a backup, or editing the database by hand) and never change what a user asked for.
 */
export function migrateMethods(ctx: LimitsContext): CustomMethod[] {
  const resettle = (handle: ResourceHandle, name: string, owner: string): Doc =>
    ctx.engine.transaction(() => {
      if (!handle.find(name)) throw notFound(`${handle.def.singular} "${name}" not found`);
      settle(ctx, loadScope(ctx, [owner]));
      const doc = handle.find(name);
      if (!doc) throw notFound(`${handle.def.singular} "${name}" no longer exists: its owner has no plan for it`);
      return doc;
    });
  return [
    {
      plural: 'limits',
      verb: 'migrate',
      scope: 'resource',
      httpMethod: 'POST',
      permission: permissionOf(limitDefinition, 'migrate'),
      handle: ({ target }) => resettle(ctx.h.limits, target, ownerOf(target)),
    },
    {
      plural: 'limitPools',
      verb: 'migrate',
      scope: 'resource',
      httpMethod: 'POST',
      permission: permissionOf(limitPoolDefinition, 'migrate'),
      handle: ({ target }) => resettle(ctx.h.pools, target, ownerOf(target)),
    },
    {
      plural: 'planAssignments',
      verb: 'migrate',
      scope: 'resource',
      httpMethod: 'PUT',
      permission: permissionOf(planAssignmentDefinition, 'migrate'),
      handle: ({ target, body }) => {
        const given = isDocument(body) ? body['name'] : undefined;
        if (given !== undefined && given !== '' && given !== target) {
          throw invalidArgument(`body name "${String(given)}" does not match "${target}"`);
        }
        return ctx.engine.transaction(() => {
          const pa = ctx.h.planAssignments.find(target);
          if (!pa) throw notFound(`plan assignment "${target}" not found`);
          const assignee = ownerOf(target);
          const assignment = storedAssignmentOf(pa);
          const assigner = new HierarchyReader(ctx).parentOf(assignee) ?? assignment.service;
          const source = pa.source ?? '';
          if (ownerOf(source) !== assigner || !ctx.h.acceptedPlans.find(source)) {
            saveAssignment(ctx, { assignee, assigner, next: assignment, current: pa });
          }
          settle(ctx, loadScope(ctx, [assignee]));
          return ctx.h.planAssignments.find(target);
        });
      },
    },
  ];
}
