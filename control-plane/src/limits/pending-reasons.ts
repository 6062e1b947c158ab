import { ApiError, type PlanAssignmentRequestResource } from '@outpost/shared';
import { where, type Condition } from '../resources/resource-query.js';
import type { LimitsContext } from './context.js';
import { submitRequest } from './core/index.js';
import { ownerOf } from './names.js';
import { currentSpec, prepareRequest } from './prepared-request.js';

/** Beyond this many entities the pending requests are read by conclusion alone (a store caps the values one query binds). */
const MAX_LISTED_ENTITIES = 500;

/**
 * The reason of a PENDING request speaks of values that keep changing after it was filed: the assignee's
 * allowances, the plans it names, its regions and what it has in use. Every write that may change them for
 * some entities judges the pending requests of those entities again (inside the same transaction), and a
 * reason that no longer holds is rewritten, so a reason never describes a tree that is gone. The conclusion
 * stays PENDING: only the approver concludes a request that was not approved when it was filed.
 */
export function refreshPendingReasonsOf(ctx: LimitsContext, entities: ReadonlySet<string>): void {
  if (entities.size === 0) return;
  const under = entities.size <= MAX_LISTED_ENTITIES ? [where.parentIn([...entities])] : [];
  refresh(
    ctx,
    pendingWhere(ctx, under).filter((doc) => entities.has(ownerOf(doc.name))),
  );
}

/** The same for the pending requests asking for one plan (its values changed, or it is gone). */
export function refreshPendingReasonsNaming(ctx: LimitsContext, plan: string): void {
  refresh(ctx, pendingWhere(ctx, [where.equals('request.assign.plan', plan)]));
}

function pendingWhere(ctx: LimitsContext, conditions: readonly Condition[]): PlanAssignmentRequestResource[] {
  return ctx.h.requests.list({ where: [where.equals('status.conclusion', 'PENDING'), ...conditions] });
}

function refresh(ctx: LimitsContext, pending: readonly PlanAssignmentRequestResource[]): void {
  for (const doc of pending) {
    const reason = reasonNow(ctx, doc);
    if (reason === (doc.status?.reason ?? '')) continue;
    ctx.h.requests.patch(doc.name, (request) => ({
      ...request,
      status: { conclusion: 'PENDING', reason },
    }));
  }
}

/** Why the request waits, judged against the tree of this moment. */
export function reasonNow(ctx: LimitsContext, doc: PlanAssignmentRequestResource): string {
  try {
    const prepared = prepareRequest(ctx, doc);
    const { decision } = submitRequest(prepared.snapshot, {
      assignee: prepared.assignee,
      service: prepared.service,
      current: currentSpec(prepared),
      request: prepared.request,
      requesterIsSystem: false,
    });
    if (decision.conclusion === 'PENDING') return decision.reason;
    return `would be approved at once if filed now (${decision.reason}); needs the approver`;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return `cannot be carried out as it stands (${err.message}); accepting it fails until that changes`;
  }
}
