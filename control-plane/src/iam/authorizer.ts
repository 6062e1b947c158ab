import { permissionDenied } from '@outpost/shared';
import {
  grantCovers,
  noAncestors,
  permissionMatches,
  scopeCovers,
  type AncestorsResolver,
} from './permission-match.js';
import type { Grant } from './grant.js';
import type { Principal } from './principal.js';

export interface AuthorizerOptions {
  /** ancestors a scope can cover a resource through (an organization above a project); none by default */
  ancestorsOf?: AncestorsResolver;
}

/** Decides whether a principal holds a permission on a resource. */
export class Authorizer {
  private readonly ancestorsOf: AncestorsResolver;

  constructor(options: AuthorizerOptions = {}) {
    this.ancestorsOf = options.ancestorsOf ?? noAncestors;
  }

  /** `resourceName` is the resource or parent acted on; global operations use `*`, which only scope `*` covers. */
  isAllowed(principal: Principal, permission: string, resourceName: string): boolean {
    return principal.grants.some(
      (g) => permissionMatches(g.permission, permission) && scopeCovers(g.scope, resourceName, this.ancestorsOf),
    );
  }

  /** Throws PERMISSION_DENIED naming the missing permission. */
  authorize(principal: Principal, permission: string, resourceName: string): void {
    if (!this.isAllowed(principal, permission, resourceName)) {
      throw permissionDenied(`missing permission ${permission} on ${resourceName}`);
    }
  }

  /** Whether the principal holds everything the grant would give (a key may not hand out more than it holds). */
  holdsGrant(principal: Principal, wanted: Grant): boolean {
    return principal.grants.some((held) => grantCovers(held, wanted, this.ancestorsOf));
  }
}
