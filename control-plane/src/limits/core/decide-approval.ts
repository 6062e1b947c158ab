import { allowanceKey, allowanceValues } from './allowance-key.js';
import type { Allowance, RequestStatus } from './model.js';

/** How much of one resource exists in one region: a project's Limit.usage, an organization's pool reserved. */
export interface ResourceUsage {
  resource: string;
  region: string;
  usage: number;
}

export interface ApprovalInput {
  /** the assignee's allowances before the request ([] when it has no assignment yet) */
  before: readonly Allowance[];
  /** its allowances after the request; undefined when the request removes the assignment */
  after: readonly Allowance[] | undefined;
  usageByResourceRegion: readonly ResourceUsage[];
  requesterIsSystem: boolean;
}

export type ApprovalDecision = RequestStatus & { conclusion: 'APPROVED' | 'PENDING' };

/**
 * Whether a new request is approved by the system at once or waits for the approver. Approved: requests of
 * the system itself, and requests that raise no allowance and take none below what is in use (this covers
 * unassign-all "unless the limits are in use" and unassign-region "unless it raises limits").
 */
export function decideApproval(input: ApprovalInput): ApprovalDecision {
  if (input.requesterIsSystem) return { conclusion: 'APPROVED', reason: 'requested by the system' };
  const before = allowanceValues(input.before);
  const after = allowanceValues(input.after ?? []);
  const inUse = input.usageByResourceRegion.filter((u) => u.usage > 0);

  if (input.after === undefined) {
    const first = inUse[0];
    if (first) {
      return pending(`limits are in use: ${describe(first)} has usage ${first.usage}`);
    }
    return { conclusion: 'APPROVED', reason: 'unassignment of unused limits' };
  }
  for (const [key, value] of after) {
    const old = before.get(key) ?? 0;
    if (value > old) return pending(`raises ${describeKey(key)} from ${old} to ${value}`);
  }
  for (const used of inUse) {
    const key = allowanceKey(used.resource, used.region);
    const value = after.get(key) ?? 0;
    if (value < used.usage && value < (before.get(key) ?? 0)) {
      return pending(`lowers ${describe(used)} to ${value}, below its usage ${used.usage}`);
    }
  }
  return { conclusion: 'APPROVED', reason: 'raises no limit' };
}

const pending = (why: string): ApprovalDecision => ({ conclusion: 'PENDING', reason: `${why}; needs the approver` });
const describe = (u: { resource: string; region: string }): string => `${u.resource} in region ${u.region}`;

function describeKey(key: string): string {
  const [region = '', resource = ''] = key.split(' ');
  return describe({ resource, region });
}
