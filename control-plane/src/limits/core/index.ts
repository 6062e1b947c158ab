/**
 * The pure core of the limits service (spec 001): allowance arithmetic, request rules, approval, the
 * pool/limit tree and usage accounting. No database, no clock: plain JSON-shaped records in, records and
 * diffs out, so the caller can run everything inside one SQLite transaction.
 *
 * Model decisions (where spec 001 leaves room):
 * - Tree: every service is the root of its own tree. A project or organization without
 *   `parentOrganization` hangs directly under the service, so its limits/pools draw from the service's pools.
 *   The assigner (AcceptedPlan owner, request approver) of an entity is its parent organization, else the
 *   service; a service assigns to itself, exempt from capacity checks.
 * - Regions: a project's regions are its own list. An organization's regions are its optional own list plus
 *   every descendant's regions; a service's are every region in the hierarchy plus its optional own list.
 *   These are the `appliedRegions` of an entity's assignments, so a new project region extends the plans of
 *   the project and of all its ancestors on the next recompute.
 * - Resources are all regional: one Limit/LimitPool per (resource, region), with a single source (the parent's
 *   pool of the same region and resource).
 * - Allowance = plan of the region (override, else default) + extensions for that region or for all regions;
 *   the sum is clamped at 0. Extensions for regions the entity is not in wait unused.
 * - assign without region sets the default plan and replaces the all-regions extensions (region overrides
 *   stay; a given extension naming a region replaces that resource's extension in that region); assign with
 *   region replaces that region's override and all of its extensions (given extensions apply to that region).
 *   extend sums additions per (resource, region), dropping entries that reach 0. unassign with region removes
 *   only that override (FAILED_PRECONDITION when there is none); an assignment left with no plan and no
 *   extension is removed. New overrides carry planGeneration 0 until materializeAssignment fills it in.
 * - Approval: the system's own requests are approved; otherwise a request is approved when it raises no
 *   allowance and takes no allowance below what is in use (project: Limit.usage, organization: pool reserved),
 *   which covers unassign-all "unless in use". Everything else waits (PENDING) for the approver.
 * - Capacity: only raises are checked, against the parent pool's configured size minus what its other
 *   children reserve; a missing parent pool gives nothing. Lowerings always pass: a pool whose configured
 *   size falls below its reserved amount keeps active = reserved, as the spec says.
 * - Tree values: Limit.activeLimit = configuredLimit unless that is below usage (then the previous active
 *   value stays); LimitPool.activeSize = max(configuredSize, reserved); reserved = Σ over children of
 *   max(configured, active). A limit with usage outlives its allowance (configured 0) until usage is released
 *   or the project is deleted. A pool exists while its owner has an allowance for it or a child draws from it
 *   (configured 0 then), so every source exists. Since an organization's regions come from its descendants, its
 *   pools in a region go when its last project there goes (unless it lists the region itself).
 * - Values settle synchronously: the "synchronization pending" moment of the spec is the caller's transaction.
 * - recomputeTree is one linear pass over the whole tree and returns a diff against the previous state, so the
 *   caller writes only what changed. recomputeEntity is the incremental path for the common case where one
 *   entity's allowance values change (a plan edit, an accepted request) without creating or deleting entries:
 *   it needs only that entity's pools/limits and the pools up their source chain.
 */
export * from './model.js';
export { parseResourceRef, limitId, poolName, limitName, entityKind } from './resource-names.js';
export type { ResourceRef, EntityKind } from './resource-names.js';
export { allowanceKey, mergeAllowances } from './allowance-key.js';
export { indexPlans, requirePlan } from './plans.js';
export type { PlansByName } from './plans.js';
export { computeAllowances, planForRegion } from './compute-allowances.js';
export { materializeAssignment } from './materialize-assignment.js';
export { applyRequest } from './apply-request.js';
export { decideApproval } from './decide-approval.js';
export type { ApprovalDecision, ApprovalInput, ResourceUsage } from './decide-approval.js';
export { acceptStatus, declineStatus } from './request-status.js';
export { settleActiveLimit, settleActiveSize, reservation } from './active-values.js';
export { indexHierarchy, assignerOf } from './hierarchy.js';
export type { HierarchyIndex } from './hierarchy.js';
export { recomputeTree } from './recompute-tree.js';
export { recomputeEntity } from './recompute-entity.js';
export type { EntityChange } from './recompute-entity.js';
export type { RecomputeResult, ExternalDraw } from './recompute-tree.js';
export { diffTree, isEmptyDiff } from './tree-diff.js';
export { lookupTree } from './tree-lookup.js';
export type { TreeLookup } from './tree-lookup.js';
export { checkCapacity } from './check-capacity.js';
export type { CapacityCheck, CapacityViolation } from './check-capacity.js';
export { requestEffect, submitRequest, usageOf, capacityError } from './request-flow.js';
export type { LimitsSnapshot, RequestInput, RequestEffect } from './request-flow.js';
export { regionsAdded, regionsRemoved } from './region-changes.js';
export { removeEntity } from './remove-entity.js';
export type { RemovedEntity } from './remove-entity.js';
export { tryConsume, release, needsSettling } from './usage.js';
export type { ConsumeResult } from './usage.js';
export { nextPlanGeneration } from './plan-generation.js';
export { checkPlanFitsAssignee } from './plan-fits-assignee.js';
export { validateAllowances, validateRegion } from './validate-allowances.js';
