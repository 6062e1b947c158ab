import type { z } from 'zod';
import type { IdRule, NamePattern } from '../names/index.js';
import type { FilterSchema } from '../query/index.js';

export const VIEWS = ['NAME', 'BASIC', 'DETAIL', 'FULL'] as const;
export type View = (typeof VIEWS)[number];

export type StandardVerb = 'get' | 'batchGet' | 'list' | 'watch' | 'create' | 'update' | 'delete';

/** Everything both sides need to know about one API resource: its names, its shape and what can be queried. */
export interface ResourceDefinition<T extends { name: string } = { name: string }> {
  /** 'Device' */
  kind: string;
  /** 'device': the JSON key of one resource in change messages */
  singular: string;
  /** 'devices': the collection segment of names and the key of list responses */
  plural: string;
  /** 'devices.outpost': permissions are services/{service}/permissions/{plural}.{verb} */
  service: string;
  /** name templates, e.g. 'projects/{project}/regions/{region}/devices/{device}' */
  patterns: readonly NamePattern[];
  /** the rule of the resource's own id (last variable) */
  idRule: IdRule;
  /** the whole resource as stored and returned */
  schema: z.ZodType<T>;
  /** paths usable in filter and order_by */
  filterSchema: FilterSchema;
  /** paths only the system writes ('status', 'metadata.createTime', ...); users' values there are ignored, masks naming them refused */
  outputOnly: readonly string[];
  /** paths fixed once created */
  immutable?: readonly string[];
  /** field paths of each view; FULL (and unspecified) is everything, NAME defaults to ['name'] */
  views: Partial<Record<Exclude<View, 'FULL'>, readonly string[]>>;
  /** standard verbs this resource does not offer (Limits and LimitPools have no create) */
  without?: readonly StandardVerb[];
  /**
   * Output-only fields the engine keeps equal to a function of the rest of the document, applied to every
   * write (user or system) before it is stored, so that they are filtered, indexed and watched like any field:
   * the device's `status.osReadyReason` copies the reason of its OSReady condition. It must return its
   * argument itself when nothing changes.
   */
  derive?: (doc: Record<string, unknown>) => Record<string, unknown>;
}

/** 'devices' → 'deviceChanges' */
export const changesKey = (def: Pick<ResourceDefinition, 'singular'>): string => `${def.singular}Changes`;

export const permissionOf = (def: Pick<ResourceDefinition, 'service' | 'plural'>, verb: string): string =>
  `services/${def.service}/permissions/${def.plural}.${verb}`;
