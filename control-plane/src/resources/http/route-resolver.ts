import { invalidArgument } from '@outpost/shared';
import type { ResourceEngine } from '../resource-engine.js';
import type { ResourceHandle } from '../resource-handle.js';

/**
 * What a /v1 path addresses. `problem`: the path has the shape of this kind's names (or of its collection)
 * but an id breaks its rule; the request is answered with it as INVALID_ARGUMENT.
 */
export type RouteTarget =
  | { scope: 'resource'; handle: ResourceHandle; name: string; verb?: string; problem?: string }
  | { scope: 'collection'; handle: ResourceHandle; parent: string; verb?: string; problem?: string }
  | { scope: 'root'; plural: string; verb: string };

/**
 * Decodes a path below /v1/ into segments, splitting a trailing custom verb (`…/x:watch`); INVALID_ARGUMENT
 * for a segment with malformed percent-encoding (`%ZZ`).
 */
export function splitPath(rawPath: string): { path: string; verb?: string } {
  const decoded = rawPath
    .replace(/^\/+|\/+$/g, '')
    .split('/')
    .map(decodeSegment)
    .join('/');
  const lastSlash = decoded.lastIndexOf('/');
  const colon = decoded.indexOf(':', lastSlash + 1);
  if (colon < 0) return { path: decoded };
  return { path: decoded.slice(0, colon), verb: decoded.slice(colon + 1) };
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw invalidArgument(
      `path segment "${segment}" is not valid percent-encoding (a % must start %XX, XX hex, UTF-8)`,
    );
  }
}

export function resolveRoute(engine: ResourceEngine, rawPath: string): RouteTarget | undefined {
  const { path, verb } = splitPath(rawPath);
  for (const handle of engine.all()) {
    if (handle.def.patterns.some((p) => p.parse(path) !== null)) return { scope: 'resource', handle, name: path, verb };
  }
  for (const handle of engine.all()) {
    const parent = parentInPath(path, handle.def.plural);
    if (parent === undefined) continue;
    const fits = handle.def.patterns.some((p) =>
      p.parentTemplate === '' ? parent === '' : p.parseParent(parent) !== null,
    );
    if (fits) return { scope: 'collection', handle, parent, verb };
  }
  if (verb !== undefined && !path.includes('/')) return { scope: 'root', plural: path, verb };
  return meantRoute(engine, path, verb);
}

/** The kind a path that fits no name was meant for, so the answer can say which id is wrong. */
function meantRoute(engine: ResourceEngine, path: string, verb: string | undefined): RouteTarget | undefined {
  for (const handle of engine.all()) {
    const problem = handle.nameProblem(path);
    if (problem?.shapeFits) return { scope: 'resource', handle, name: path, verb, problem: problem.message };
  }
  for (const handle of engine.all()) {
    const parent = parentInPath(path, handle.def.plural);
    const problem = parent === undefined ? null : handle.parentProblem(parent);
    if (parent !== undefined && problem?.shapeFits) {
      return { scope: 'collection', handle, parent, verb, problem: problem.message };
    }
  }
  // a name of no known shape: the kind named last in it explains what its names look like
  const named = engine
    .all()
    .map((handle) => ({ handle, at: `/${path}/`.lastIndexOf(`/${handle.def.plural}/`) }))
    .filter(({ at }) => at >= 0)
    .sort((a, b) => b.at - a.at)[0];
  if (!named) return undefined;
  // a collection's path (`-/devices:watch`) is answered as one, so the parent's problem is named, not a verb's flags
  const parent = parentInPath(path, named.handle.def.plural);
  const problem = parent === undefined ? null : named.handle.parentProblem(parent);
  if (parent !== undefined && problem)
    return { scope: 'collection', handle: named.handle, parent, verb, problem: problem.message };
  return { scope: 'resource', handle: named.handle, name: path, verb };
}

const parentInPath = (path: string, plural: string): string | undefined => {
  if (path === plural) return '';
  return path.endsWith('/' + plural) ? path.slice(0, -plural.length - 1) : undefined;
};
