import { failedPrecondition } from '@outpost/shared';
import type { AssigneeAssignment, Hierarchy } from './model.js';

export interface RemovedEntity {
  hierarchy: Hierarchy;
  /** the assignments left; the removed entity's accepted plans are gone, so recomputeTree returns its limits */
  assignments: AssigneeAssignment[];
  /** the removed entity's assignments: the caller deletes them with their AcceptedPlans */
  removedAssignments: AssigneeAssignment[];
}

/**
 * Deleting a project or organization deletes its accepted plans, which returns all its limits to the parent
 * pools on the next recomputeTree. An organization that still has projects or organizations under it cannot go.
 */
export function removeEntity(
  hierarchy: Hierarchy,
  assignments: readonly AssigneeAssignment[],
  entity: string,
): RemovedEntity {
  const child =
    hierarchy.organizations.find((org) => org.parentOrganization === entity) ??
    hierarchy.projects.find((project) => project.parentOrganization === entity);
  if (child) throw failedPrecondition(`"${entity}" still has "${child.name}" under it`);
  return {
    hierarchy: {
      ...hierarchy,
      organizations: hierarchy.organizations.filter((org) => org.name !== entity),
      projects: hierarchy.projects.filter((project) => project.name !== entity),
    },
    assignments: assignments.filter((assignment) => assignment.assignee !== entity),
    removedAssignments: assignments.filter((assignment) => assignment.assignee === entity),
  };
}
