import {
  alreadyExists,
  failedPrecondition,
  invalidArgument,
  type AcceptedPlanResource,
  type PlanAssignmentResource,
} from '@outpost/shared';
import type { OperationContext, ResourceRules } from '../../resources/resource-rules.js';
import { findAssignment } from '../assignment-store.js';
import { checkedSpec, computeAssignment } from '../assignment-spec.js';
import { findBy, type LimitsContext } from '../context.js';
import { entityKind, lookupTree, usageOf } from '../core/index.js';
import { HierarchyReader } from '../hierarchy-reader.js';
import { acceptedPlanName, assigneeField, lastSegment, ownerOf, planAssignmentName } from '../names.js';
import { assignmentFields, storedAssignmentOf, type AssignmentDoc } from '../records.js';
import { settle } from '../settle.js';
import { loadScope } from '../scope.js';

/**
 * AcceptedPlans are the assigner's side of an assignment: an organization (or a service) creates, changes
 * and deletes them for the entities right under it, and the assignee's PlanAssignment follows in the same
 * transaction. A change that would size a child above its parent pool is refused (spec 001 Errors 5); a
 * service's plan for itself is exempt.
 */
export function acceptedPlanRules(ctx: LimitsContext): ResourceRules<AcceptedPlanResource> {
  const prepare = (doc: AcceptedPlanResource, stored: AcceptedPlanResource | undefined): AcceptedPlanResource => {
    const reader = new HierarchyReader(ctx);
    const name = doc.name;
    const assigner = ownerOf(name);
    const assignee = assigneeOf(doc);
    if (!reader.entity(assignee)) throw failedPrecondition(`${assignee} does not exist`);
    const service = doc.service || (entityKind(assigner) === 'service' ? assigner : serviceOfPlans(ctx, doc));
    if (!/^services\/[^/]+$/.test(service)) throw invalidArgument('service is required: services/{service}');
    const expected = entityKind(assignee) === 'service' ? assignee : (reader.parentOf(assignee) ?? service);
    if (entityKind(assignee) === 'service' && assignee !== service) {
      throw invalidArgument(`a service accepts plans for itself only: ${assignee} cannot take plans of ${service}`);
    }
    if (expected !== assigner) {
      throw failedPrecondition(`${assignee} takes its ${service} plans from ${expected}, not from ${assigner}`);
    }
    if (!stored) {
      if (findAssignment(ctx, assignee, service)) {
        throw alreadyExists(`${assignee} already has a plan assignment for ${service}`);
      }
      const paired = planAssignmentName(assignee, lastSegment(name));
      if (ctx.h.planAssignments.find(paired)) throw alreadyExists(`plan assignment "${paired}" already exists`);
    }
    const { spec, plans } = checkedSpec(ctx, reader, doc, assignee, service);
    return { ...doc, ...assignmentFields(computeAssignment(reader, assignee, spec, plans)) };
  };

  const sync = (doc: AcceptedPlanResource): void => {
    const name = doc.name;
    const assignee = assigneeOf(doc);
    const fields = assignmentFields(storedAssignmentOf(doc));
    const paired = findBy(ctx.h.planAssignments, 'source', name)[0];
    if (paired) ctx.h.planAssignments.patch(paired.name, (pa) => ({ ...pa, ...fields }));
    else ctx.h.planAssignments.put({ name: planAssignmentName(assignee, lastSegment(name)), ...fields, source: name });
    settle(ctx, loadScope(ctx, [assignee]));
  };

  return {
    beforeCreate: (doc, op) => (isUser(op) ? prepare(doc, undefined) : undefined),
    afterCreate: (doc, op) => (isUser(op) ? sync(doc) : undefined),
    beforeUpdate: (before, after, op) => (isUser(op) ? prepare(after, before) : undefined),
    afterUpdate: (_before, after, op) => (isUser(op) ? sync(after) : undefined),
    afterDelete: (doc, op) => {
      if (!isUser(op)) return;
      for (const paired of findBy(ctx.h.planAssignments, 'source', doc.name)) {
        ctx.h.planAssignments.remove(paired.name);
      }
      settle(ctx, loadScope(ctx, [assigneeOf(doc)]));
    },
  };
}

/**
 * PlanAssignments are read-only to projects and organizations (spec 001: "not directly modifiable by the
 * assignee"): theirs follow their AcceptedPlan, and no create, update or delete of one is accepted. A service
 * may assign a plan to itself directly (its AcceptedPlan follows); deleting its own gives the plan back, which
 * is refused while its limits are in use (the unassign rule).
 */
export function planAssignmentRules(ctx: LimitsContext): ResourceRules<PlanAssignmentResource> {
  const prepare = (doc: PlanAssignmentResource, stored: PlanAssignmentResource | undefined): PlanAssignmentResource => {
    const reader = new HierarchyReader(ctx);
    const name = doc.name;
    const assignee = ownerOf(name);
    if (entityKind(assignee) !== 'service') {
      throw failedPrecondition(
        `the plan assignments of ${assignee} are made by its assigner: create an AcceptedPlan there, ` +
          `or a PlanAssignmentRequest under ${assignee}`,
      );
    }
    if (!reader.entity(assignee)) throw failedPrecondition(`${assignee} does not exist`);
    const service = doc.service || assignee;
    if (service !== assignee)
      throw invalidArgument(`a service assigns plans to itself only: service must be ${assignee}`);
    const source = stored ? (stored.source ?? '') : acceptedPlanName(assignee, lastSegment(name));
    if (!stored) {
      if (findAssignment(ctx, assignee, service))
        throw alreadyExists(`${assignee} already has a plan assignment for ${service}`);
      if (ctx.h.acceptedPlans.find(source)) throw alreadyExists(`accepted plan "${source}" already exists`);
    }
    const { spec, plans } = checkedSpec(ctx, reader, doc, assignee, service);
    return { ...doc, ...assignmentFields(computeAssignment(reader, assignee, spec, plans)), source };
  };

  const sync = (doc: PlanAssignmentResource): void => {
    const assignee = ownerOf(doc.name);
    const source = doc.source ?? '';
    const fields = assignmentFields(storedAssignmentOf(doc));
    if (ctx.h.acceptedPlans.find(source)) ctx.h.acceptedPlans.patch(source, (ap) => ({ ...ap, ...fields }));
    else ctx.h.acceptedPlans.put({ name: source, ...fields, assignee: assigneeField(assignee) });
    settle(ctx, loadScope(ctx, [assignee]));
  };

  return {
    beforeCreate: (doc, op) => (isUser(op) ? prepare(doc, undefined) : undefined),
    afterCreate: (doc, op) => (isUser(op) ? sync(doc) : undefined),
    beforeUpdate: (before, after, op) => (isUser(op) ? prepare(after, before) : undefined),
    afterUpdate: (_before, after, op) => (isUser(op) ? sync(after) : undefined),
    beforeDelete: (doc, op) => {
      if (!isUser(op)) return;
      const assignee = ownerOf(doc.name);
      if (entityKind(assignee) !== 'service') {
        throw failedPrecondition(
          `the plan assignments of ${assignee} are removed by its assigner: delete the AcceptedPlan ` +
            `${doc.source ?? ''} there, or create an unassign PlanAssignmentRequest under ${assignee}`,
        );
      }
      const scope = loadScope(ctx, [assignee]);
      const inUse = usageOf(lookupTree(scope.previous), assignee, doc.service ?? '').find((u) => u.usage > 0);
      if (inUse) {
        throw failedPrecondition(
          `the limits of ${doc.name} are in use (${inUse.resource} in region ${inUse.region}: ${inUse.usage}); ` +
            'ask the assigner to unassign it',
        );
      }
    },
    afterDelete: (doc, op) => {
      if (!isUser(op)) return;
      if (doc.source) ctx.h.acceptedPlans.remove(doc.source);
      settle(ctx, loadScope(ctx, [ownerOf(doc.name)]));
    },
  };
}

/** The service of the plans an assignment names, when `service` is left out. */
function serviceOfPlans(ctx: LimitsContext, doc: AssignmentDoc): string {
  const plan = doc.defaultRegionalPlan || doc.regionalPlanOverrides?.[0]?.plan;
  return plan ? (ctx.h.plans.find(plan)?.service ?? '') : '';
}

const isUser = (op: OperationContext): boolean => op.system !== true;

/** The one entity an AcceptedPlan is for; anything else is INVALID_ARGUMENT. */
export function assigneeOf(doc: AcceptedPlanResource): string {
  const assignee = doc.assignee ?? {};
  const members = (
    [
      ['projectAssignee', 'projects'],
      ['organizationAssignee', 'organizations'],
      ['serviceAssignee', 'services'],
    ] as const
  ).filter(([member]) => (assignee[member] ?? '') !== '');
  const only = members[0];
  if (members.length !== 1 || !only) {
    throw invalidArgument('assignee must set exactly one of projectAssignee, organizationAssignee and serviceAssignee');
  }
  const value = assignee[only[0]] ?? '';
  if (!new RegExp(`^${only[1]}/[^/]+$`).test(value)) {
    throw invalidArgument(`assignee.${only[0]} must look like ${only[1]}/{id}, not "${value}"`);
  }
  return value;
}
