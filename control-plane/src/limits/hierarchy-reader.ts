import type { Organization, Project, Service } from '@outpost/shared';
import type { ResourceHandle } from '../resources/resource-handle.js';
import { where } from '../resources/resource-query.js';
import type { EntityDoc, LimitsContext } from './context.js';
import { entityKind, type Plan } from './core/index.js';
import { planOf, regionsOf } from './records.js';

/** Organizations whose children one statement reads (a store caps the values one query binds). */
const ORGANIZATIONS_PER_READ = 500;

/**
 * Reads the service → organizations → projects hierarchy from the store. One reader serves one operation
 * (inside its transaction): it remembers the entities it read.
 */
export class HierarchyReader {
  private readonly read = new Map<string, EntityDoc | undefined>();

  constructor(
    private readonly ctx: LimitsContext,
    /** entities read ahead (see ScopeReads) */
    private readonly readAhead?: { entityDoc(name: string): { doc: EntityDoc | undefined } | undefined },
  ) {}

  handleOf(entity: string): ResourceHandle<Service> | ResourceHandle<Organization> | ResourceHandle<Project> {
    const kind = entityKind(entity);
    const h = this.ctx.h;
    return kind === 'service' ? h.services : kind === 'organization' ? h.organizations : h.projects;
  }

  entity(name: string): EntityDoc | undefined {
    if (!this.read.has(name)) {
      const ahead = this.readAhead?.entityDoc(name);
      this.read.set(name, ahead ? ahead.doc : this.handleOf(name).find(name));
    }
    return this.read.get(name);
  }

  /** A plan (kept across operations until plans are written). */
  plan(name: string): Plan | undefined {
    const plans = this.ctx.h.plans;
    const known = this.ctx.derived('plans', [plans], () => new Map<string, Plan | undefined>());
    if (!known.has(name)) {
      const doc = plans.find(name);
      known.set(name, doc && planOf(doc));
    }
    return known.get(name);
  }

  /** The parent organization of an organization or project; undefined under the services. */
  parentOf(entity: string): string | undefined {
    if (entityKind(entity) === 'service') return undefined;
    const doc = this.entity(entity);
    return (doc && 'parentOrganization' in doc && doc.parentOrganization) || undefined;
  }

  /** The organizations above an entity, nearest first. */
  ancestors(entity: string): string[] {
    const chain: string[] = [];
    for (let parent = this.parentOf(entity); parent !== undefined; parent = this.parentOf(parent)) {
      if (chain.includes(parent) || parent === entity) break; // a cycle is refused on write; never loop here
      chain.push(parent);
    }
    return chain;
  }

  /** Organizations and projects directly under an organization (names). */
  children(org: string): string[] {
    const h = this.ctx.h;
    return [...this.childNames(h.organizations, org), ...this.childNames(h.projects, org)];
  }

  /** An organization's own regions and those of everything under it. */
  subtreeRegions(org: string): string[] {
    const h = this.ctx.h;
    return [
      ...this.ctx.derived(`subtreeRegions ${org}`, [h.organizations, h.projects], () => this.readSubtreeRegions(org)),
    ];
  }

  private readSubtreeRegions(org: string): string[] {
    const h = this.ctx.h;
    const regions = new Set<string>(regionsOf(this.entity(org)));
    const seen = new Set([org]);
    // a level at a time: the organizations and the projects under its organizations are read together
    for (let level = [org]; level.length > 0;) {
      const next: string[] = [];
      for (let i = 0; i < level.length; i += ORGANIZATIONS_PER_READ) {
        const under = { where: [where.in('parentOrganization', level.slice(i, i + ORGANIZATIONS_PER_READ))] };
        const [organizations, projects] = [h.organizations.queryLater(under), h.projects.queryLater(under)];
        for (const { doc } of organizations()) {
          for (const region of regionsOf(doc)) regions.add(region);
          const name = doc.name;
          if (!seen.has(name)) {
            seen.add(name);
            next.push(name);
          }
        }
        for (const { doc } of projects()) for (const region of regionsOf(doc)) regions.add(region);
      }
      level = next;
    }
    return [...regions].sort();
  }

  /** Every region any project, organization or service lists (counted as they are written: no documents read). */
  allRegions(): string[] {
    const h = this.ctx.h;
    return [...this.ctx.derived('allRegions', [h.projects, h.organizations, h.services], () => this.readAllRegions())];
  }

  private readAllRegions(): string[] {
    return [...new Set(this.ctx.world.listedRegions.flatMap((counts) => counts.values()))].sort();
  }

  /** Where an entity's plans apply (spec 001 applied_regions): see the core's HierarchyIndex.regionsOf. */
  effectiveRegions(entity: string): string[] {
    const kind = entityKind(entity);
    if (kind === 'project') return [...new Set(regionsOf(this.entity(entity)))].sort();
    if (kind === 'organization') return this.subtreeRegions(entity);
    return [...new Set([...regionsOf(this.entity(entity)), ...this.allRegions()])].sort();
  }

  private childNames(handle: ResourceHandle<Organization> | ResourceHandle<Project>, org: string): string[] {
    return handle.names({ where: [where.equals('parentOrganization', org)] });
  }
}
