import type { ServiceNode, LimitPool, Limit, OrganizationNode, ProjectNode, Plan } from './core/index.js';
import { RowProjection } from '../resources/row-projection.js';
import type { ResourceTable } from '../resources/resource-table.js';
import { assignmentRowOf, type AssignmentRow } from './assignment-row.js';
import { limitOf, organizationNodeOf, planOf, poolOf, projectNodeOf, regionsOf, text } from './records.js';

/** The tables a whole-tree recompute reads. */
type WorldTable = 'services' | 'organizations' | 'projects' | 'plans' | 'planAssignments' | 'pools' | 'limits';

/**
 * What a whole-tree recompute reads, derived document by document and held in memory, up to date with every
 * write (see RowProjection): a plan change that recomputes every pool and limit starts from here instead of
 * reading and parsing every document of seven tables.
 */
export class WorldModel {
  readonly services: RowProjection<ServiceNode>;
  readonly organizations: RowProjection<OrganizationNode>;
  readonly projects: RowProjection<ProjectNode>;
  readonly plans: RowProjection<Plan>;
  readonly assignments: RowProjection<AssignmentRow>;
  readonly pools: RowProjection<LimitPool>;
  readonly limits: RowProjection<Limit>;

  constructor(h: Record<WorldTable, { table: ResourceTable }>) {
    this.services = new RowProjection(h.services.table, (doc) => ({
      name: text(doc['name']),
      regions: regionsOf(doc),
    }));
    this.organizations = new RowProjection(h.organizations.table, (doc) => organizationNodeOf(doc, regionsOf(doc)));
    this.projects = new RowProjection(h.projects.table, projectNodeOf);
    this.plans = new RowProjection(h.plans.table, planOf);
    this.assignments = new RowProjection(h.planAssignments.table, assignmentRowOf);
    this.pools = new RowProjection(h.pools.table, poolOf);
    this.limits = new RowProjection(h.limits.table, limitOf);
  }

  /** Reads whatever is not held yet (at start: the first plan change should not pay for it). */
  build(): void {
    for (const projection of this.all()) projection.build();
  }

  /** Stops following the tables. */
  close(): void {
    for (const projection of this.all()) projection.close();
  }

  private all(): RowProjection<unknown>[] {
    return [this.services, this.organizations, this.projects, this.plans, this.assignments, this.pools, this.limits];
  }
}
