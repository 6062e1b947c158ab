import { where } from '../resources/resource-query.js';
import type { QueriedRow } from '../resources/resource-table.js';
import type { EntityDoc, HeldKinds, LimitsContext } from './context.js';
import { entityKind } from './core/index.js';
import { holdRows, serviceNames, type HeldScopeRows } from './scope.js';

/** The kinds of rows a scope reads under its entities. */
export type ScopeRowKind = 'planAssignments' | 'pools' | 'limits';

/**
 * The reads of one entity's scope (see loadScope), made together before the scope is known for sure: the
 * entity and the organizations above it as the world model last saw them, every service, and the rows under
 * them. On PostgreSQL they go out in one round trip instead of one each (with whatever the caller reads next).
 * What they read is used only where it is what the scope would have read: the entities the stored documents
 * lead to must be the ones guessed.
 */
export class ScopeReads {
  /** the entities guessed, in the order loadScope adds them */
  readonly entities: ReadonlySet<string>;
  /** made before the rows were read (see HeldRows) */
  readonly held: HeldScopeRows;
  private readonly entityDocs = new Map<string, () => { doc: EntityDoc } | undefined>();
  private readonly rows: { [K in ScopeRowKind]: () => QueriedRow<HeldKinds[K]>[] };

  constructor(
    ctx: LimitsContext,
    /** the entity whose scope it reads */
    readonly entity: string,
  ) {
    const h = ctx.h;
    const chain = guessedChain(ctx, entity);
    const entities = new Set([...chain, ...serviceNames(ctx)]);
    this.entities = entities;
    for (const name of chain) {
      const kind = entityKind(name);
      const handle = kind === 'project' ? h.projects : kind === 'organization' ? h.organizations : h.services;
      this.entityDocs.set(name, handle.findRowLater(name));
    }
    this.held = holdRows(ctx);
    const all = [...entities];
    const handles: { [K in ScopeRowKind]: LimitsContext['h'][K] } = h;
    const under = <K extends ScopeRowKind>(kind: K, parents: string[]): (() => QueriedRow<HeldKinds[K]>[]) =>
      handles[kind].queryLater({ where: [where.parentIn(parents)] });
    this.rows = {
      planAssignments: under('planAssignments', all),
      pools: under(
        'pools',
        all.filter((name) => entityKind(name) !== 'project'),
      ),
      limits: under(
        'limits',
        all.filter((name) => entityKind(name) === 'project'),
      ),
    };
  }

  /** The stored document of an entity it read (undefined: not one it read, or not stored). */
  entityDoc(name: string): { doc: EntityDoc | undefined } | undefined {
    const read = this.entityDocs.get(name);
    return read && { doc: read()?.doc };
  }

  /** Whether the scope's entities are the ones guessed, so that what was read under them is the scope's. */
  covers(entities: ReadonlySet<string>): boolean {
    return entities.size === this.entities.size && [...entities].every((name) => this.entities.has(name));
  }

  rowsOf<K extends ScopeRowKind>(kind: K): QueriedRow<HeldKinds[K]>[] {
    return this.rows[kind]();
  }
}

/** The entity and the organizations above it, as the world model holds them (the entity alone when it holds none). */
function guessedChain(ctx: LimitsContext, entity: string): string[] {
  const chain = [entity];
  const world = ctx.world;
  let parent =
    entityKind(entity) === 'project'
      ? world.projects.held(entity)?.parentOrganization
      : world.organizations.held(entity)?.parentOrganization;
  while (parent && !chain.includes(parent)) {
    chain.push(parent);
    parent = world.organizations.held(parent)?.parentOrganization;
  }
  return chain;
}
