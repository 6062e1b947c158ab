import {
  failedPrecondition,
  invalidArgument,
  notFound,
  permissionOf,
  planAssignmentRequestDefinition,
  type PlanAssignmentRequestResource,
} from '@outpost/shared';
import type { CustomCall, CustomMethod } from '../../resources/http/custom-method.js';
import { isDocument } from '../../resources/doc-utils.js';
import type { Doc, StoredRow } from '../../resources/resource-table.js';
import type { LimitsContext } from '../context.js';
import { acceptStatus, capacityError, declineStatus, requestEffect, type RequestStatus } from '../core/index.js';
import { currentSpec, prepareRequest } from '../prepared-request.js';
import { carryOut } from '../request-handling.js';
import { ownerOf } from '../names.js';
import { ScopeReads } from '../scope-reads.js';

export const ACCEPT_PERMISSION = permissionOf(planAssignmentRequestDefinition, 'accept');
export const DECLINE_PERMISSION = permissionOf(planAssignmentRequestDefinition, 'decline');

/**
 * AcceptPlanAssignment and DeclinePlanAssignment (POST {name}:accept / :decline). Only the approver may
 * conclude a request: the caller needs the permission on the approver (an organization, or the service,
 * which a key scoped to `*` covers), besides on the request itself. `approver` in the body may be left
 * empty; when given it must be the request's approver.
 */
export function reviewMethods(ctx: LimitsContext): CustomMethod[] {
  /** The request to conclude, as stored (its row: concluded with patchRow, without reading it again). */
  const pending = (
    call: CustomCall,
    permission: string,
  ): {
    row: StoredRow<PlanAssignmentRequestResource>;
    doc: PlanAssignmentRequestResource;
    status: RequestStatus;
    body: Doc;
  } => {
    const body = bodyOf(call.body);
    const row = ctx.h.requests.findRow(call.target);
    if (!row) throw notFound(`plan assignment request "${call.target}" not found`);
    const doc = row.doc;
    const approver = doc.approver ?? '';
    const given = bodyText(body, 'approver');
    if (given !== '' && given !== approver) {
      throw failedPrecondition(`the approver of ${call.target} is ${approver}, not ${given}`);
    }
    call.authorize(permission, approver);
    const status = doc.status;
    return {
      row,
      doc,
      body,
      status: {
        conclusion: status?.conclusion ?? 'UNDEFINED',
        reason: status?.reason ?? '',
      },
    };
  };

  return [
    {
      plural: 'planAssignmentRequests',
      verb: 'accept',
      scope: 'resource',
      httpMethod: 'POST',
      permission: ACCEPT_PERMISSION,
      batchable: true,
      handle: (call) =>
        ctx.engine.transaction(() => {
          // the assignee's scope is read with the request (one round trip on PostgreSQL)
          const reads = new ScopeReads(ctx, ownerOf(call.target));
          const { row, doc, status } = pending(call, ACCEPT_PERMISSION);
          const accepted = acceptStatus(status);
          const prepared = prepareRequest(ctx, doc, reads);
          const effect = requestEffect(prepared.snapshot, {
            assignee: prepared.assignee,
            service: prepared.service,
            current: currentSpec(prepared),
            request: prepared.request,
          });
          if (!effect.capacity.ok) throw capacityError(effect.capacity.violation);
          // concluded first, so the settling that follows does not judge its reason again as a pending one (the
          // row as read above: nothing between wrote it)
          ctx.h.requests.patchRow(row, (request) => ({ ...request, status: accepted }));
          const acceptedPlan = carryOut(ctx, prepared, effect.next);
          // as just written: held by the world model while it is current (read otherwise)
          return { acceptedPlan: acceptedPlan ? ctx.storedRow('acceptedPlans', acceptedPlan)?.doc : undefined };
        }),
    },
    {
      plural: 'planAssignmentRequests',
      verb: 'decline',
      scope: 'resource',
      httpMethod: 'POST',
      permission: DECLINE_PERMISSION,
      batchable: true,
      handle: (call) =>
        ctx.engine.transaction(() => {
          const { row, status, body } = pending(call, DECLINE_PERMISSION);
          const reason = bodyText(body, 'reason');
          const declined = declineStatus(status, reason || undefined);
          ctx.h.requests.patchRow(row, (request) => ({ ...request, status: declined }));
          return {};
        }),
    },
  ];
}

/** A member of the caller's JSON body that the method reads as a string (anything else reads as ''). */
const bodyText = (body: Doc, member: string): string => {
  const value = body[member];
  return typeof value === 'string' ? value : '';
};

function bodyOf(body: unknown): Doc {
  if (body === undefined || body === null || (typeof body === 'object' && Object.keys(body).length === 0)) return {};
  if (!isDocument(body)) throw invalidArgument('the request body must be a JSON object');
  return body;
}
