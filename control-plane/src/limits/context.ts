import type {
  AcceptedPlanResource,
  LimitPoolResource,
  LimitResource,
  Organization,
  PlanAssignmentRequestResource,
  PlanAssignmentResource,
  PlanResource,
  Project,
  Service,
} from '@outpost/shared';
import type { ResourceEngine } from '../resources/resource-engine.js';
import type { ResourceHandle } from '../resources/resource-handle.js';
import { where } from '../resources/resource-query.js';
import type { Doc, QueriedRow, StoredRow } from '../resources/resource-table.js';
import { HeldRows } from './held-rows.js';
import type { MeteredResource } from './metering.js';
import { WorldModel } from './world-model.js';

/** The document types of the kinds a recompute writes over (see HeldRows). */
export interface HeldKinds {
  pools: LimitPoolResource;
  limits: LimitResource;
  planAssignments: PlanAssignmentResource;
  acceptedPlans: AcceptedPlanResource;
}
export type HeldKind = keyof HeldKinds;

/** The registered handles of the hierarchy and limits resources. */
export interface LimitsHandles {
  services: ResourceHandle<Service>;
  organizations: ResourceHandle<Organization>;
  projects: ResourceHandle<Project>;
  plans: ResourceHandle<PlanResource>;
  planAssignments: ResourceHandle<PlanAssignmentResource>;
  acceptedPlans: ResourceHandle<AcceptedPlanResource>;
  requests: ResourceHandle<PlanAssignmentRequestResource>;
  pools: ResourceHandle<LimitPoolResource>;
  limits: ResourceHandle<LimitResource>;
}

/** An entity of the hierarchy: a service, an organization or a project. */
export type EntityDoc = Service | Organization | Project;

/**
 * What the limits rules and methods share: the engine and the handles. Rules are registered together with
 * their handles, so the handles are attached right after registration (no rule runs before that).
 */
export class LimitsContext {
  private attached: { handles: LimitsHandles; world: WorldModel } | undefined;
  private readonly memos = new Map<string, { versions: number[]; value: unknown }>();

  /** the resources other services registered as metered, by the resource name plans count */
  readonly meters = new Map<string, MeteredResource>();

  constructor(readonly engine: ResourceEngine) {}

  /**
   * A value derived from the stored documents of `handles`, kept across operations and computed again only
   * after one of them was written (or a transaction rolled back: see ResourceHandle.version). Callers must
   * not change it.
   */
  derived<T>(key: string, handles: readonly ResourceHandle[], compute: () => T): T {
    const versions = handles.map((handle) => handle.version);
    const memo = this.memos.get(key);
    // a key names one derivation, so its memo was computed by a `compute` returning this same T
    if (memo && memo.versions.every((version, i) => version === versions[i])) return memo.value as T;
    const value = compute();
    this.memos.set(key, { versions, value });
    return value;
  }

  attach(handles: LimitsHandles): void {
    this.attached?.world.close();
    this.attached = { handles, world: new WorldModel(handles) };
  }

  get h(): LimitsHandles {
    return this.registered().handles;
  }

  /** The whole tree as a recompute reads it, kept in memory (see WorldModel). */
  get world(): WorldModel {
    return this.registered().world;
  }

  /** Rows of a kind a recompute writes over, to be held or else taken from the world model (see HeldRows). */
  heldRows<K extends HeldKind>(kind: K): HeldRows<HeldKinds[K]> {
    const handles: { [Kind in HeldKind]: ResourceHandle<HeldKinds[Kind]> } = this.h;
    return new HeldRows(handles[kind], this.world.stored[kind]);
  }

  /** One stored row of such a kind: from the world model while it is current, else read from the table. */
  storedRow<K extends HeldKind>(kind: K, name: string): StoredRow<HeldKinds[K]> | undefined {
    const handles: { [Kind in HeldKind]: ResourceHandle<HeldKinds[Kind]> } = this.h;
    return this.world.stored[kind].held(name) ?? handles[kind].findRow(name);
  }

  private registered(): { handles: LimitsHandles; world: WorldModel } {
    if (!this.attached) throw new Error('limits handles used before registration finished');
    return this.attached;
  }
}

/** Documents whose filterable scalar `path` equals `value` (an indexed lookup), in name order. */
export function findBy<T extends Doc>(handle: ResourceHandle<T>, path: string, value: string): T[] {
  return handle.list({ where: [where.equals(path, value)] });
}

/** Documents directly under `parent`, in name order. */
export function childrenOf<T extends Doc>(handle: ResourceHandle<T>, parent: string): T[] {
  return handle.list({ where: [where.parent(parent)] });
}

/** The rows directly under any of `parents`, in name order (one query). */
export function rowsUnder<T extends Doc>(handle: ResourceHandle<T>, parents: readonly string[]): QueriedRow<T>[] {
  if (parents.length === 0) return [];
  return handle.query({ where: [where.parentIn(parents)] });
}

/** Every document of a kind, in name order. */
export function everyDoc<T extends Doc>(handle: ResourceHandle<T>): T[] {
  return handle.list();
}

export function countBy(handle: ResourceHandle<Doc>, path: string, value: string): number {
  return handle.count({ where: [where.equals(path, value)] });
}

/** How many documents hold `value` in the string list at `path`. */
export function countContaining(handle: ResourceHandle, path: string, value: string): number {
  return handle.count({ where: [where.contains(path, value)] });
}
