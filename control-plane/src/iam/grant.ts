import { z } from 'zod';

/** One permission (possibly with `*` wildcards) on one scope (`*` or a resource name). */
export interface Grant {
  permission: string;
  scope: string;
  /**
   * Organizations the grant was handed out through: a key that held the scope only because the resource lay
   * under one of them. The grant applies only while the resource still lies under each of them.
   */
  grantedThrough?: readonly string[];
}

export const EVERY_PERMISSION = '*';
export const EVERY_SCOPE = '*';

const PERMISSION_PATTERN = /^services\/[A-Za-z0-9.*_-]+\/permissions\/[A-Za-z0-9_*-]+(\.[A-Za-z0-9_*-]+)?$/;
const MAX_SCOPE_LENGTH = 1000;
const COLLECTION_SEGMENT = /^[a-z][A-Za-z]*$/;
const SCOPE_SEGMENT = /^[A-Za-z0-9._~-]+$/;

export const PermissionPatternSchema = z.string().refine((p) => p === EVERY_PERMISSION || PERMISSION_PATTERN.test(p), {
  message: 'must be "*" or services/{service}/permissions/{collection}.{verb}, where any part may be "*"',
});

export const ScopeSchema = z.string().refine(isValidScope, {
  message:
    'must be "*" or a resource name such as projects/p or organizations/o ' +
    '(a collection then ids; no wildcards, no "." or ".." segments, at most 1000 characters)',
});

/** A grant as a caller asks for it. */
export const GrantSchema = z.object({ permission: PermissionPatternSchema, scope: ScopeSchema });

/** A grant as stored and shown, with the organizations the server found it was handed out through. */
export const StoredGrantSchema = GrantSchema.extend({ grantedThrough: z.array(ScopeSchema).optional() });

/**
 * `*`, or a resource name: a collection (`projects`, `organizations`, ...) then at least one id, each segment
 * of URL-safe characters. `-` (every value) and the path steps `.` and `..` would name no single resource.
 */
export function isValidScope(scope: string): boolean {
  if (scope === EVERY_SCOPE) return true;
  if (scope.length > MAX_SCOPE_LENGTH) return false;
  const segments = scope.split('/');
  return (
    segments.length >= 2 &&
    COLLECTION_SEGMENT.test(segments[0] ?? '') &&
    segments.every((s) => s !== '-' && s !== '.' && s !== '..' && SCOPE_SEGMENT.test(s))
  );
}

/** 'permission@scope', the form the command line uses. */
export const formatGrant = (grant: Grant): string => `${grant.permission}@${grant.scope}`;

/** 'permission@scope', followed by ' (through organizations/o)' for a grant held through organizations. */
export const describeGrant = (grant: Grant): string =>
  grant.grantedThrough?.length
    ? `${formatGrant(grant)} (through ${grant.grantedThrough.join(' and ')})`
    : formatGrant(grant);
