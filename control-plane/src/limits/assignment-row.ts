import type { PlanAssignmentResource } from '@outpost/shared';
import type { AssigneeAssignment } from './core/index.js';
import { storedAssignmentOf } from './records.js';

/** The documents behind one assignment: the assignee's PlanAssignment and the assigner's AcceptedPlan. */
export interface AssignmentRef {
  planAssignment: string;
  acceptedPlan: string;
}

export const assignmentKey = (assignee: string, service: string): string => `${assignee} ${service}`;

/** One PlanAssignment document as a recompute reads it, with the documents behind it. */
export interface AssignmentRow {
  assignment: AssigneeAssignment;
  /** assignmentKey(assignee, service) */
  key: string;
  ref: AssignmentRef;
}

export function assignmentRowOf(doc: PlanAssignmentResource): AssignmentRow {
  const name = doc.name;
  const assignee = name.slice(0, name.indexOf('/planAssignments/'));
  const stored = storedAssignmentOf(doc);
  return {
    assignment: { ...stored, assignee },
    key: assignmentKey(assignee, stored.service),
    ref: { planAssignment: name, acceptedPlan: doc.source ?? '' },
  };
}
