import type { ServiceNode, LimitPool, Limit, OrganizationNode, ProjectNode, Plan } from './core/index.js';
import type { RowProjection } from '../resources/row-projection.js';
import type { ValueCounts } from '../resources/value-counts.js';
import type { StoredRow } from '../resources/resource-table.js';
import type { HeldKind, HeldKinds, LimitsHandles } from './context.js';
import { assignmentRowOf, type AssignmentRow } from './assignment-row.js';
import { limitOf, organizationNodeOf, planOf, poolOf, projectNodeOf, regionsOf } from './records.js';

/** The tables a whole-tree recompute reads. */
type WorldTable =
  'services' | 'organizations' | 'projects' | 'plans' | 'planAssignments' | 'acceptedPlans' | 'pools' | 'limits';

/** The stored rows of the kinds a whole-tree recompute writes over. */
export type StoredWorldRows = { [K in HeldKind]: RowProjection<StoredRow<HeldKinds[K]>> };

/**
 * What a whole-tree recompute reads, derived document by document and held in memory, up to date with every
 * write (see RowProjection): a plan change that recomputes every pool and limit starts from here instead of
 * reading and parsing every document of seven tables. It also holds the stored rows such a recompute writes
 * over (`stored`), so that its writes read nothing either.
 */
export class WorldModel {
  readonly services: RowProjection<ServiceNode>;
  readonly organizations: RowProjection<OrganizationNode>;
  readonly projects: RowProjection<ProjectNode>;
  readonly plans: RowProjection<Plan>;
  readonly assignments: RowProjection<AssignmentRow>;
  readonly pools: RowProjection<LimitPool>;
  readonly limits: RowProjection<Limit>;
  readonly stored: StoredWorldRows;
  /** the regions services, organizations and projects list (each kind's own, kept up to date) */
  readonly listedRegions: readonly ValueCounts[];

  constructor(h: Pick<LimitsHandles, WorldTable>) {
    this.services = h.services.project((doc) => ({ name: doc.name, regions: regionsOf(doc) }));
    this.organizations = h.organizations.project((doc) => organizationNodeOf(doc, regionsOf(doc)));
    this.projects = h.projects.project(projectNodeOf);
    this.plans = h.plans.project(planOf);
    this.assignments = h.planAssignments.project(assignmentRowOf);
    this.pools = h.pools.project(poolOf);
    this.limits = h.limits.project(limitOf);
    this.listedRegions = [
      h.services.countValues(regionsOf),
      h.organizations.countValues(regionsOf),
      h.projects.countValues(regionsOf),
    ];
    const row = <T>(doc: T, id: number) => ({ id, doc });
    this.stored = {
      pools: h.pools.project(row),
      limits: h.limits.project(row),
      planAssignments: h.planAssignments.project(row),
      acceptedPlans: h.acceptedPlans.project(row),
    };
  }

  /** Reads whatever is not held yet (at start: the first plan change should not pay for it). */
  build(): void {
    for (const projection of this.all()) projection.build();
  }

  /** Stops following the tables. */
  close(): void {
    for (const projection of this.all()) projection.close();
    for (const counts of this.listedRegions) counts.close();
  }

  private all(): RowProjection<unknown>[] {
    const { services, organizations, projects, plans, assignments, pools, limits, stored } = this;
    return [services, organizations, projects, plans, assignments, pools, limits, ...Object.values(stored)];
  }
}
