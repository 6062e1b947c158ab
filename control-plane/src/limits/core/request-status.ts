import { failedPrecondition } from '@outpost/shared';
import type { RequestStatus } from './model.js';

/** AcceptPlanAssignment: only a pending request can be accepted. */
export function acceptStatus(status: RequestStatus, reason = 'accepted by the approver'): RequestStatus {
  requirePending(status);
  return { conclusion: 'APPROVED', reason };
}

/** DeclinePlanAssignment: only a pending request can be declined. */
export function declineStatus(status: RequestStatus, reason = 'declined by the approver'): RequestStatus {
  requirePending(status);
  return { conclusion: 'REJECTED', reason };
}

function requirePending(status: RequestStatus): void {
  if (status.conclusion !== 'PENDING') throw failedPrecondition(`the request is ${status.conclusion}, not PENDING`);
}
