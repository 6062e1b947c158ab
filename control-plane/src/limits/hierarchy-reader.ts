import type { ResourceHandle } from '../resources/resource-handle.js';
import type { Doc } from '../resources/resource-table.js';
import { column, type LimitsContext } from './context.js';
import { entityKind, type Plan } from './core/index.js';
import { planOf, regionsOf, text } from './records.js';

/**
 * Reads the service → organizations → projects hierarchy from the store. One reader serves one operation
 * (inside its transaction): it remembers the entities it read.
 */
export class HierarchyReader {
  private readonly read = new Map<string, Doc | undefined>();

  constructor(private readonly ctx: LimitsContext) {}

  handleOf(entity: string): ResourceHandle {
    const kind = entityKind(entity);
    const h = this.ctx.h;
    return kind === 'service' ? h.services : kind === 'organization' ? h.organizations : h.projects;
  }

  entity(name: string): Doc | undefined {
    if (!this.read.has(name)) this.read.set(name, this.handleOf(name).find(name));
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

  /** Organizations and projects directly under an organization (names). */
  children(org: string): string[] {
    const h = this.ctx.h;
    return [...this.childNames(h.organizations, org), ...this.childNames(h.projects, org)];
  }

  /** An organization's own regions and those of everything under it (read from the region index, no documents). */
  subtreeRegions(org: string): string[] {
    const h = this.ctx.h;
    return [
      ...this.ctx.derived(`subtreeRegions ${org}`, [h.organizations, h.projects], () => this.readSubtreeRegions(org)),
    ];
  }

  private readSubtreeRegions(org: string): string[] {
    const h = this.ctx.h;
    const regions = new Set<string>(regionsOf(this.entity(org)));
    const pending = [org];
    const seen = new Set(pending);
    for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
      for (const handle of [h.organizations, h.projects]) {
        for (const region of this.childRegions(handle, next)) regions.add(region);
      }
      for (const child of this.childNames(h.organizations, next)) {
        if (!seen.has(child)) {
          seen.add(child);
          pending.push(child);
        }
      }
    }
    return [...regions].sort();
  }

  /** Every region any project, organization or service lists (a loose index scan: fast for few regions). */
  allRegions(): string[] {
    const h = this.ctx.h;
    return [...this.ctx.derived('allRegions', [h.projects, h.organizations, h.services], () => this.readAllRegions())];
  }

  private readAllRegions(): string[] {
    const h = this.ctx.h;
    const regions = new Set<string>();
    for (const handle of [h.projects, h.organizations, h.services]) {
      const values = `${handle.table.table}_values`;
      const min = `SELECT MIN(value) FROM ${values} WHERE path = 'regions'`;
      const scan = this.ctx.statement<{ v: string }>(
        `WITH RECURSIVE r(v) AS (SELECT (${min}) UNION ALL SELECT (${min} AND value > r.v) FROM r WHERE r.v IS NOT NULL) ` +
          'SELECT v FROM r WHERE v IS NOT NULL',
      );
      for (const row of scan.all()) regions.add(row.v);
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

  private childNames(handle: ResourceHandle, org: string): string[] {
    const sql = `SELECT name FROM ${handle.table.table} WHERE ${column(handle, 'parentOrganization')} = ? ORDER BY name`;
    return this.ctx
      .statement<{ name: string }>(sql)
      .all(org)
      .map((row) => row.name);
  }

  private childRegions(handle: ResourceHandle, org: string): string[] {
    const t = handle.table.table;
    const sql =
      `SELECT DISTINCT v.value AS region FROM ${t} e CROSS JOIN ${t}_values v ON v.row_id = e.id ` +
      `WHERE e.${column(handle, 'parentOrganization')} = ? AND +v.path = 'regions'`; // '+': look values up by row, not by path
    return this.ctx
      .statement<{ region: string }>(sql)
      .all(org)
      .map((row) => row.region);
  }
}
