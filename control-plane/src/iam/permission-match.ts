import { EVERY_PERMISSION, EVERY_SCOPE, type Grant } from './grant.js';

/** Returns the names whose children a resource also belongs to, e.g. ['organizations/o'] for 'projects/p/...'. */
export type AncestorsResolver = (resourceName: string) => readonly string[];

export const noAncestors: AncestorsResolver = () => [];

/**
 * Whether a permission pattern covers a permission (or, as a string, a narrower pattern): `*` alone
 * covers everything; otherwise the '/'-separated segments correspond one to one and a `*` inside a
 * segment stands for any run of characters within that segment.
 */
export function permissionMatches(pattern: string, permission: string): boolean {
  if (pattern === EVERY_PERMISSION) return true;
  const patternSegments = pattern.split('/');
  const segments = permission.split('/');
  return (
    patternSegments.length === segments.length && patternSegments.every((p, i) => segmentMatches(p, segments[i] ?? ''))
  );
}

/**
 * Whether a scope covers a resource: `*` covers everything; a name prefix covers that name, the names
 * under it, and names one of whose ancestors it covers. Only the literal `*` resource is covered by `*` alone.
 */
export function scopeCovers(
  scope: string,
  resourceName: string,
  ancestorsOf: AncestorsResolver = noAncestors,
): boolean {
  if (scope === EVERY_SCOPE) return true;
  if (resourceName === EVERY_SCOPE) return false;
  return isAtOrUnder(resourceName, scope) || ancestorsOf(resourceName).some((a) => isAtOrUnder(a, scope));
}

/**
 * Whether a grant's scope covers a resource as the hierarchy stands now: its own scope, and each organization it
 * was handed out through (so access that came through an organization ends when the resource leaves it).
 */
export function grantScopeCovers(
  grant: Grant,
  resourceName: string,
  ancestorsOf: AncestorsResolver = noAncestors,
): boolean {
  return (
    scopeCovers(grant.scope, resourceName, ancestorsOf) &&
    (grant.grantedThrough ?? []).every((through) => scopeCovers(through, resourceName, ancestorsOf))
  );
}

/** Whether holding `held` implies everything `wanted` allows (used to stop keys granting more than they hold). */
export function grantCovers(held: Grant, wanted: Grant, ancestorsOf: AncestorsResolver = noAncestors): boolean {
  return permissionMatches(held.permission, wanted.permission) && grantScopeCovers(held, wanted.scope, ancestorsOf);
}

/** Whether a scope covers a name by itself, without the hierarchy: `*`, the name itself, or a prefix of it. */
export const scopeCoversDirectly = (scope: string, resourceName: string): boolean =>
  scope === EVERY_SCOPE || isAtOrUnder(resourceName, scope);

const isAtOrUnder = (name: string, prefix: string): boolean => name === prefix || name.startsWith(`${prefix}/`);

function segmentMatches(pattern: string, segment: string): boolean {
  if (!pattern.includes('*')) return pattern === segment;
  const regex = new RegExp(`^${pattern.split('*').map(escapeRegExp).join('.*')}$`, 's');
  return regex.test(segment);
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
