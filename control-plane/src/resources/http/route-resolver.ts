import type { ResourceEngine } from '../resource-engine.js';
import type { ResourceHandle } from '../resource-handle.js';

/** What a /v1 path addresses. */
export type RouteTarget =
  | { scope: 'resource'; handle: ResourceHandle; name: string; verb?: string }
  | { scope: 'collection'; handle: ResourceHandle; parent: string; verb?: string }
  | { scope: 'root'; plural: string; verb: string };

/** Decodes a path below /v1/ into segments, splitting a trailing custom verb (`…/x:watch`). */
export function splitPath(rawPath: string): { path: string; verb?: string } {
  const decoded = rawPath
    .replace(/^\/+|\/+$/g, '')
    .split('/')
    .map((s) => decodeURIComponent(s))
    .join('/');
  const lastSlash = decoded.lastIndexOf('/');
  const colon = decoded.indexOf(':', lastSlash + 1);
  if (colon < 0) return { path: decoded };
  return { path: decoded.slice(0, colon), verb: decoded.slice(colon + 1) };
}

export function resolveRoute(engine: ResourceEngine, rawPath: string): RouteTarget | undefined {
  const { path, verb } = splitPath(rawPath);
  for (const handle of engine.all()) {
    if (handle.def.patterns.some((p) => p.parse(path) !== null)) return { scope: 'resource', handle, name: path, verb };
  }
  for (const handle of engine.all()) {
    const plural = handle.def.plural;
    let parent: string | undefined;
    if (path === plural) parent = '';
    else if (path.endsWith('/' + plural)) parent = path.slice(0, -plural.length - 1);
    if (parent === undefined) continue;
    const fits = handle.def.patterns.some((p) =>
      p.parentTemplate === '' ? parent === '' : p.parseParent(parent!) !== null,
    );
    if (fits) return { scope: 'collection', handle, parent, verb };
  }
  if (verb !== undefined && !path.includes('/')) return { scope: 'root', plural: path, verb };
  // a name of a known kind that fails its pattern: let the operation explain what is wrong with it
  for (const handle of engine.all()) {
    const plural = handle.def.plural;
    if (path.startsWith(plural + '/') || path.includes('/' + plural + '/'))
      return { scope: 'resource', handle, name: path, verb };
  }
  return undefined;
}
