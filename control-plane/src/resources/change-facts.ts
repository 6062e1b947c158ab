import { changedPaths, deepEqual, sortFew } from '@outpost/shared';
import type { FilterSchema } from '@outpost/shared';

type Doc = Record<string, unknown>;

/**
 * What the change log keeps of an update so that a watcher resuming from it sends exactly what a live watcher
 * sent (spec 001 Events 2): the changed leaf paths (for the field mask) and the previous values of the
 * filterable fields the update changed (so the filter can be evaluated on the document as it was before).
 */

/**
 * changedPaths(before, after), computed only below the top-level members that are not the same object on
 * both sides: writes mostly build the new document from the old one, so unchanged members are shared.
 */
export function changedMemberPaths(before: Doc, after: Doc): string[] {
  const changed: string[] = [];
  // own keys by for-in (what Object.keys lists, in its order) without a key array: this runs for every update
  for (const key in before) if (Object.hasOwn(before, key)) addChangedMember(before, after, key, changed);
  for (const key in after) {
    if (Object.hasOwn(after, key) && !Object.hasOwn(before, key)) addChangedMember(before, after, key, changed);
  }
  return sortFew(changed);
}

/** Adds to `changed` the paths changedPaths lists at and under the top-level member `key`. */
function addChangedMember(before: Doc, after: Doc, key: string, changed: string[]): void {
  const a = before[key];
  const b = after[key];
  if (Object.is(a, b)) return;
  // neither side an object: the member is one leaf (what changedPaths would say, without its walk and sort)
  if (!isPlainObject(a) && !isPlainObject(b)) {
    if (!deepEqual(a, b)) changed.push(key);
    return;
  }
  for (const path of changedPaths(a, b)) changed.push(path === '' ? key : `${key}.${path}`);
}

/** A filterable path and its value (null when absent) before an update. */
export type PriorValue = readonly [path: string, value: unknown];

const DOT = 46;

/** Whether `a` is `b` or lies under it (without building `${b}.`: this runs for every field of every update). */
const atOrUnder = (a: string, b: string): boolean =>
  a.length === b.length ? a === b : a.length > b.length && a.charCodeAt(b.length) === DOT && a.startsWith(b);

/** Whether a change at any of `changed` reaches `path`: one lies at, under or above the other. */
export const touches = (changed: readonly string[], path: string): boolean =>
  changed.some((c) => atOrUnder(c, path) || atOrUnder(path, c));

/** The previous values of the filterable fields that `changed` touches. */
export function priorFilterValues(before: Doc, changed: readonly string[], schema: FilterSchema): PriorValue[] {
  return priorValuesAt(before, touchedFilterPaths(changed, schema));
}

/** The filterable paths that `changed` touches. */
export function touchedFilterPaths(changed: readonly string[], schema: FilterSchema): string[] {
  return schema.fields.filter((field) => touches(changed, field.path)).map((field) => field.path);
}

/** The values (null when absent) at `paths` of the document as it was before an update. */
export function priorValuesAt(before: Doc, paths: readonly string[]): PriorValue[] {
  return paths.map((path) => [path, valueAt(before, path) ?? null]);
}

/**
 * The part of a document a filter of this schema reads (every filterable path): enough to evaluate the filter,
 * and small enough to copy when a change is undone on it.
 */
export function filterView(doc: Doc, schema: FilterSchema): Doc {
  const view: Doc = {};
  for (const field of schema.fields) {
    const value = valueAt(doc, field.path);
    if (value !== undefined) setAt(view, field.path, value);
  }
  return view;
}

/** The view as it was before an update whose previous values are `prior`. */
export function undoOnView(view: Doc, prior: readonly PriorValue[]): Doc {
  let undone = view;
  for (const [path, value] of prior) undone = withValueAt(undone, path.split('.'), value);
  return undone;
}

/**
 * Paths sorted, written with the leading segments they share with the previous path elided:
 * `metadata.resourceVersion`, `metadata.updateTime`, `status.cpu` → `["0:metadata.resourceVersion","1:updateTime",
 * "0:status.cpu"]`. A device's status write changes a dozen leaves under a few members, so this is about half
 * the size of the paths written out.
 */
export function encodePaths(paths: readonly string[]): string {
  const out: string[] = [];
  let previous: string[] = [];
  for (const path of paths) {
    const segments = path.split('.');
    let shared = 0;
    while (shared < segments.length - 1 && shared < previous.length && segments[shared] === previous[shared]) shared++;
    out.push(`${shared}:${segments.slice(shared).join('.')}`);
    previous = segments;
  }
  return JSON.stringify(out);
}

export function decodePaths(encoded: string): string[] {
  const parsed: unknown = JSON.parse(encoded);
  if (!Array.isArray(parsed)) throw new Error('change log: paths are not a list');
  const paths: string[] = [];
  let previous: string[] = [];
  for (const item of parsed) {
    const match = typeof item === 'string' ? /^(\d+):(.*)$/s.exec(item) : null;
    if (!match) throw new Error(`change log: bad path entry ${JSON.stringify(item)}`);
    const path = [...previous.slice(0, Number(match[1])), match[2]!].join('.');
    paths.push(path);
    previous = path.split('.');
  }
  return paths;
}

const isPlainObject = (value: unknown): value is Doc =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function valueAt(doc: unknown, path: string): unknown {
  let current = doc;
  for (const segment of path.split('.')) {
    if (!isPlainObject(current) || !Object.hasOwn(current, segment)) return undefined;
    current = current[segment];
  }
  return current;
}

function setAt(doc: Doc, path: string, value: unknown): void {
  const segments = path.split('.');
  let current = doc;
  for (const segment of segments.slice(0, -1)) {
    // copied, not descended into: the value may be an object of the document itself
    const next = current[segment];
    current = current[segment] = isPlainObject(next) ? { ...next } : {};
  }
  current[segments.at(-1)!] = value;
}

/** A copy of `doc` with `value` at `segments`, sharing every member it does not change. */
function withValueAt(doc: Doc, segments: readonly string[], value: unknown): Doc {
  const [head, ...rest] = segments as [string, ...string[]];
  if (rest.length === 0) return { ...doc, [head]: value };
  const below = doc[head];
  return { ...doc, [head]: withValueAt(isPlainObject(below) ? below : {}, rest, value) };
}
