import type { Statement } from 'better-sqlite3';
import type { ResourceHandle } from '../resources/resource-handle.js';
import type { Doc } from '../resources/resource-table.js';
import { findBy, type LimitsContext } from './context.js';
import { entityKind, type OrganizationNode, type ProjectNode } from './core/index.js';
import { list, text } from './records.js';

/** Reads the service → organizations → projects hierarchy from the store (inside the caller's transaction). */
export class HierarchyReader {
  private readonly regionScans = new Map<string, Statement<[], { v: string }>>();

  constructor(private readonly ctx: LimitsContext) {}

  handleOf(entity: string): ResourceHandle {
    const kind = entityKind(entity);
    const h = this.ctx.h;
    return kind === 'service' ? h.services : kind === 'organization' ? h.organizations : h.projects;
  }

  entity(name: string): Doc | undefined {
    return this.handleOf(name).find(name);
  }

  /** The parent organization of an organization or project; undefined under the services. */
  parentOf(entity: string): string | undefined {
    if (entityKind(entity) === 'service') return undefined;
    return text(this.entity(entity)?.['parentOrganization']) || undefined;
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

  /** Organizations and projects directly under an organization. */
  children(org: string): Doc[] {
    const h = this.ctx.h;
    return [...findBy(h.organizations, 'parentOrganization', org), ...findBy(h.projects, 'parentOrganization', org)];
  }

  /** An organization's own regions and those of everything under it. */
  subtreeRegions(org: string): string[] {
    const regions = new Set<string>(regionsOf(this.entity(org)));
    const pending = [org];
    const seen = new Set(pending);
    for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
      for (const child of this.children(next)) {
        for (const region of regionsOf(child)) regions.add(region);
        const name = text(child['name']);
        if (entityKind(name) === 'organization' && !seen.has(name)) {
          seen.add(name);
          pending.push(name);
        }
      }
    }
    return [...regions].sort();
  }

  /** Every region any project, organization or service lists (a loose index scan: fast for few regions). */
  allRegions(): string[] {
    const h = this.ctx.h;
    const regions = new Set<string>();
    for (const handle of [h.projects, h.organizations, h.services]) {
      for (const row of this.regionScan(handle).all()) regions.add(row.v);
    }
    return [...regions].sort();
  }

  /** Where an entity's plans apply (spec 001 applied_regions): see the core's HierarchyIndex.regionsOf. */
  effectiveRegions(entity: string): string[] {
    const kind = entityKind(entity);
    if (kind === 'project') return [...new Set(regionsOf(this.entity(entity)))].sort();
    if (kind === 'organization') return this.subtreeRegions(entity);
    return [...new Set([...regionsOf(this.entity(entity)), ...this.allRegions()])].sort();
  }

  organizationNode(doc: Doc, regions: readonly string[]): OrganizationNode {
    return { name: text(doc['name']), parentOrganization: text(doc['parentOrganization']), regions };
  }

  projectNode(doc: Doc): ProjectNode {
    return { name: text(doc['name']), parentOrganization: text(doc['parentOrganization']), regions: regionsOf(doc) };
  }

  private regionScan(handle: ResourceHandle): Statement<[], { v: string }> {
    let statement = this.regionScans.get(handle.def.plural);
    if (!statement) {
      const values = `${handle.table.table}_values`;
      const min = `SELECT MIN(value) FROM ${values} WHERE path = 'regions'`;
      statement = this.ctx.engine.db.prepare<[], { v: string }>(
        `WITH RECURSIVE r(v) AS (SELECT (${min}) UNION ALL SELECT (${min} AND value > r.v) FROM r WHERE r.v IS NOT NULL) ` +
          'SELECT v FROM r WHERE v IS NOT NULL',
      );
      this.regionScans.set(handle.def.plural, statement);
    }
    return statement;
  }
}

export const regionsOf = (doc: Doc | undefined): string[] => list(doc?.['regions']).map(text);
