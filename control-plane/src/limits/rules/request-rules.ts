import { isDeepStrictEqual } from 'node:util';
import { failedPrecondition, type PlanAssignmentRequestResource } from '@outpost/shared';
import type { ResourceRules } from '../../resources/resource-rules.js';
import type { LimitsContext } from '../context.js';
import { capacityError, submitRequest } from '../core/index.js';
import { currentSpec, prepareRequest } from '../prepared-request.js';
import { carryOut } from '../request-handling.js';

/**
 * PlanAssignmentRequests: a new request is approved at once when the system may approve it (it raises no
 * limit and takes none below what is in use, or the system asks), and then takes effect in the same
 * transaction; otherwise it waits PENDING for its approver (AcceptPlanAssignment / DeclinePlanAssignment).
 * A pending request may be rewritten (and is judged again); a concluded one keeps its request.
 */
export function requestRules(ctx: LimitsContext): ResourceRules<PlanAssignmentRequestResource> {
  return {
    beforeCreate: (doc, op) => submit(ctx, doc, op.system === true),
    beforeUpdate: (before, after, op) => {
      if (op.system) return;
      const sameRequest =
        isDeepStrictEqual(before.request, after.request) &&
        (!after.service || after.service === (before.service ?? ''));
      if (sameRequest) return { ...after, service: before.service };
      const conclusion = before.status?.conclusion ?? '';
      if (conclusion !== 'PENDING') {
        throw failedPrecondition(`the request is ${conclusion || 'UNDEFINED'}: only its metadata can change`);
      }
      return submit(ctx, after, false);
    },
  };
}

function submit(
  ctx: LimitsContext,
  doc: PlanAssignmentRequestResource,
  requesterIsSystem: boolean,
): PlanAssignmentRequestResource {
  const prepared = prepareRequest(ctx, doc);
  const outcome = submitRequest(prepared.snapshot, {
    assignee: prepared.assignee,
    service: prepared.service,
    current: currentSpec(prepared),
    request: prepared.request,
    requesterIsSystem,
  });
  if (outcome.decision.conclusion === 'APPROVED') {
    if (!outcome.capacity.ok) throw capacityError(outcome.capacity.violation);
    carryOut(ctx, prepared, outcome.next);
  }
  return {
    ...doc,
    service: prepared.service,
    approver: prepared.approver,
    status: { conclusion: outcome.decision.conclusion, reason: outcome.decision.reason },
  };
}
