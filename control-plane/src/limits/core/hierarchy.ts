import { failedPrecondition } from '@outpost/shared';
import type { Hierarchy } from './model.js';
import { entityKind } from './resource-names.js';

/** Lookups over one snapshot of the service → organizations → projects tree. */
export interface HierarchyIndex {
  has(entity: string): boolean;
  /** the parent organization, or undefined when the entity hangs directly under the service (or is one) */
  parentOrganizationOf(entity: string): string | undefined;
  /** projects: their own list; organizations: their own list plus every descendant's; services: all regions */
  regionsOf(entity: string): readonly string[];
  /** organizations ordered so that every child comes before its parent */
  organizationsChildrenFirst: readonly string[];
  projects: readonly string[];
}

export function indexHierarchy(hierarchy: Hierarchy): HierarchyIndex {
  const parents = new Map<string, string | undefined>();
  const regions = new Map<string, Set<string>>();
  for (const org of hierarchy.organizations) {
    parents.set(org.name, org.parentOrganization || undefined);
    regions.set(org.name, new Set(org.regions ?? []));
  }
  for (const project of hierarchy.projects) {
    if (parents.has(project.name)) throw failedPrecondition(`"${project.name}" is listed twice`);
    parents.set(project.name, project.parentOrganization || undefined);
    regions.set(project.name, new Set(project.regions));
  }
  for (const [entity, parent] of parents) {
    if (parent !== undefined && (!regions.has(parent) || entityKind(parent) !== 'organization')) {
      throw failedPrecondition(`parent organization "${parent}" of "${entity}" does not exist`);
    }
  }
  const organizationsChildrenFirst = orderChildrenFirst(
    hierarchy.organizations.map((org) => org.name),
    parents,
  );

  const allRegions = new Set<string>();
  const addAll = (into: Set<string>, from: Iterable<string>): void => {
    for (const region of from) into.add(region);
  };
  for (const project of hierarchy.projects) {
    const parent = parents.get(project.name);
    if (parent) addAll(regions.get(parent) ?? new Set(), project.regions);
    addAll(allRegions, project.regions);
  }
  for (const org of organizationsChildrenFirst) {
    const own = regions.get(org) ?? new Set<string>();
    const parent = parents.get(org);
    if (parent) addAll(regions.get(parent) ?? new Set(), own);
    addAll(allRegions, own);
  }
  for (const service of hierarchy.services ?? []) regions.set(service.name, new Set(service.regions ?? []));

  const sorted = new Map<string, readonly string[]>();
  const sortedRegions = (entity: string): readonly string[] => {
    let list = sorted.get(entity);
    if (!list) {
      const own = regions.get(entity) ?? new Set<string>();
      list = [...(entityKind(entity) === 'service' ? new Set([...allRegions, ...own]) : own)].sort();
      sorted.set(entity, list);
    }
    return list;
  };

  return {
    has: (entity) => parents.has(entity) || entityKind(entity) === 'service',
    parentOrganizationOf: (entity) => parents.get(entity),
    regionsOf: sortedRegions,
    organizationsChildrenFirst,
    projects: hierarchy.projects.map((project) => project.name),
  };
}

/** Who accepts the entity's plans (owner of its AcceptedPlan, approver of its requests). */
export function assignerOf(index: HierarchyIndex, assignee: string, service: string): string {
  if (entityKind(assignee) === 'service') return assignee;
  return index.parentOrganizationOf(assignee) ?? service;
}

function orderChildrenFirst(
  organizations: readonly string[],
  parents: ReadonlyMap<string, string | undefined>,
): string[] {
  const depth = new Map<string, number>();
  const depthOf = (org: string): number => {
    const seen: string[] = [];
    let current: string | undefined = org;
    while (current !== undefined && !depth.has(current)) {
      if (seen.includes(current)) throw failedPrecondition(`organization "${current}" is its own ancestor`);
      seen.push(current);
      current = parents.get(current);
    }
    let level = current === undefined ? 0 : (depth.get(current) ?? 0) + 1;
    for (let i = seen.length - 1; i >= 0; i--) {
      const name = seen[i];
      if (name !== undefined) depth.set(name, level++);
    }
    return depth.get(org) ?? 0;
  };
  return [...organizations].sort((a, b) => depthOf(b) - depthOf(a));
}
