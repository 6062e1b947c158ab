/**
 * The limits service of spec 001 on the resource engine, with the service → organizations → projects
 * hierarchy it distributes quotas down, and the devices service as its first client.
 *
 * Resources. `services/{service}`, `organizations/{organization}` and `projects/{project}` belong to the
 * service id `resourcemanager.outpost` (permissions services/resourcemanager.outpost/permissions/projects.create,
 * ...). An organization or project has an optional `parentOrganization` (absent: it hangs directly under the
 * services), a list of `regions` and an optional `businessTier`. The six limits resources belong to
 * `limits.outpost`. Everything settles synchronously: every rule runs inside the write's SQLite transaction,
 * recomputes the part of the tree the write touches (core recomputeTree over a scope: the entity, its
 * ancestors and the services, with what children outside the scope hold of its pools) and writes only what
 * changed, so a refused write changes nothing and nothing drifts. A change that reaches many assignees (a plan
 * used by hundreds) recomputes the whole tree from the WorldModel: what a recompute reads, derived document by
 * document when the service starts and kept up to date by every write (a table whose writes a rollback undid
 * is read again by the next whole-tree recompute). The
 * "synchronization pending" moment of the spec is that transaction: activeLimit equals configuredLimit as soon
 * as the write commits, except in the conflict row (configured lowered below usage: active keeps its old value
 * until usage fits).
 *
 * Decisions (where spec 001 leaves room):
 * - Bootstrap: a fresh control plane creates services/devices.outpost with the plans `service` (SERVICE,
 *   1,000,000,000 devices per region), `organization-small` (ORGANIZATION, SMALL, 100,000) and `project-small`
 *   (PROJECT, SMALL, 1,000), and the service's own assignment of `service` (the system assigns itself without
 *   limits). Once the service exists the bootstrap touches nothing again.
 * - Default plans: a new organization or project gets, per service, the plan of its level whose businessTier
 *   is set (its own tier when it names one, else the smallest), an organization's plan above it preferred to
 *   the service's. Its assigner accepts it as the system; when the parent pool cannot back it, the creation is
 *   refused (FAILED_PRECONDITION) — a child is never sized above its parent pool.
 * - Assigners: the assigner of an entity (owner of its AcceptedPlan, approver of its requests) is its parent
 *   organization, else the service; a service assigns to itself. An AcceptedPlan and its PlanAssignment share
 *   one id (`{project|organization}-{id}.{service domain}` when the system names them, the service domain for
 *   a service's own). One assignment per entity and service. A plan serves an assignee when it is for the same
 *   service and level and belongs to the service or to an organization above the assignee.
 * - Who writes what: assigners create/update/delete AcceptedPlans (the PlanAssignment follows); assignees ask
 *   through PlanAssignmentRequests; PlanAssignments are read-only to projects and organizations
 *   (create/update/delete FAILED_PRECONDITION, pointing to the AcceptedPlan or an unassign request) except that
 *   a service may assign itself directly, and deleting its own gives the plan back (refused while its limits
 *   are in use). Limits and LimitPools: only metadata is writable; no create (POST is
 *   UNIMPLEMENTED, update with allowMissing on a missing one is INVALID_ARGUMENT); delete is FAILED_PRECONDITION.
 * - Capacity (spec 001 Errors 5): after every recompute no pool may reserve more than its configured size
 *   unless it already did and the write does not make it worse; such writes (accepted plans, accepted
 *   requests, plan edits, new regions, moves, default plans) are FAILED_PRECONDITION. The service's own plan
 *   has no parent and is never checked. Lowering a pool below what its children reserve is allowed
 *   (activeSize = reserved).
 * - Requests: approved at once when requested by the system or when they raise no allowance and take none
 *   below what is in use (Limit.usage of a project, pool reserved of an organization) — this covers "unassign
 *   unless in use" and "region unassign unless it raises limits"; otherwise PENDING. Accepting (caller needs
 *   planAssignmentRequests.accept on the approver) re-evaluates against the tree of that moment and is
 *   FAILED_PRECONDITION (request stays PENDING) when the parent cannot back it. Declining sets REJECTED with
 *   the given reason. A PENDING request may be rewritten (and is judged again); a concluded one keeps it.
 *   The reason of a PENDING request is judged again by every write that may change what it speaks of (a
 *   settle of its entity, a device of its project, a change of the plan it asks for), so it stays true; only
 *   the approver concludes it (see pending-reasons.ts).
 *   Conclusions: UNDEFINED (never stored), PENDING, APPROVED, REJECTED.
 * - Plans: generation starts at 1 and grows on every change of resourceLimits; every assignment using the plan
 *   (and every pool and limit below) follows in the same transaction; a plan in use cannot be deleted.
 * - Hierarchy changes: a project's new region extends its accepted plans and those of every ancestor into it
 *   (appliedRegions grows); a region a project still has usage in cannot be dropped. Changing
 *   parentOrganization moves the entity's accepted plans to the new assigner, points its pools and limits at
 *   the new parent's pools (capacity-checked) and gives its pending requests the new approver. Deleting a
 *   project (refused while it has devices) or organization (refused while anything is under it) deletes its
 *   plan assignments, accepted plans, requests and own plans: its limits return to the parent pools.
 * - Migrate: since moves settle in their transaction, MigrateLimitSource / MigrateLimitPoolSource /
 *   MigratePlanAssignment are idempotent repairs that re-derive one resource from the current hierarchy and
 *   answer it (see methods/migrate-methods.ts).
 * - Metered resources register themselves (LimitsService.meter; limits names none of them). Devices, the first
 *   client (devices/device-metering.ts): creating `projects/p/regions/r/devices/d` takes one from the Limit
 *   `projects/p/limits/r/devices.outpost/devices` (RESOURCE_EXHAUSTED beyond activeLimit, or when the project
 *   has no devices limit in r), deleting gives it back. A region the project does not list is
 *   FAILED_PRECONDITION. A device of a project that does not exist as a resource is not metered (so the devices
 *   API works without the hierarchy); when such a project is created later, its usage counts the devices
 *   already there.
 * - Authorization: a key scoped to an organization covers the organization's projects and sub-organizations
 *   (ancestorsOf). ListApproverPlanAssignmentRequests is a root method: its permission is checked on the
 *   `approver` the request names (on `*` without one, which only service-wide keys hold).
 */
export { createLimitsService } from './limits-service.js';
export type { LimitsService } from './limits-service.js';
export type { MeteredPlace, MeteredResource, Metering } from './metering.js';
