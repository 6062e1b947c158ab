import { z } from 'zod';

/** One permission (possibly with `*` wildcards) on one scope (`*` or a resource-name prefix). */
export interface Grant {
  permission: string;
  scope: string;
}

export const EVERY_PERMISSION = '*';
export const EVERY_SCOPE = '*';

const PERMISSION_PATTERN = /^services\/[A-Za-z0-9.*_-]+\/permissions\/[A-Za-z0-9_*-]+(\.[A-Za-z0-9_*-]+)?$/;
const SCOPE_SEGMENT = /^[A-Za-z0-9._~-]+$/;

export const PermissionPatternSchema = z.string().refine((p) => p === EVERY_PERMISSION || PERMISSION_PATTERN.test(p), {
  message: 'must be "*" or services/{service}/permissions/{collection}.{verb}, where any part may be "*"',
});

export const ScopeSchema = z.string().refine(isValidScope, {
  message: 'must be "*" or a resource name prefix such as projects/p or organizations/o (no wildcards)',
});

export const GrantSchema = z.object({ permission: PermissionPatternSchema, scope: ScopeSchema });

function isValidScope(scope: string): boolean {
  if (scope === EVERY_SCOPE) return true;
  const segments = scope.split('/');
  return segments.every((s) => s !== '-' && SCOPE_SEGMENT.test(s));
}

/** 'permission@scope', the form the command line uses. */
export const formatGrant = (grant: Grant): string => `${grant.permission}@${grant.scope}`;
