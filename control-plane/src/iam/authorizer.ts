import { permissionDenied } from '@outpost/shared';
import {
  grantCovers,
  grantScopeCovers,
  noAncestors,
  permissionMatches,
  scopeCoversDirectly,
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
      (g) => permissionMatches(g.permission, permission) && grantScopeCovers(g, resourceName, this.ancestorsOf),
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

  /**
   * The grant as the principal may hand it out, or undefined when it does not hold it. A grant the principal
   * holds only because the scope lies under an organization records that organization (and those its own
   * grant came through) in `grantedThrough`, so it lapses when the scope leaves them.
   */
  grantable(principal: Principal, wanted: Grant): Grant | undefined {
    let fewest: string[] | undefined;
    for (const held of principal.grants) {
      if (!grantCovers(held, wanted, this.ancestorsOf)) continue;
      const through = new Set(held.grantedThrough ?? []);
      if (!scopeCoversDirectly(held.scope, wanted.scope)) through.add(held.scope);
      if (fewest === undefined || through.size < fewest.length) fewest = [...through].sort();
    }
    if (fewest === undefined) return undefined;
    const grant = { permission: wanted.permission, scope: wanted.scope };
    return fewest.length === 0 ? grant : { ...grant, grantedThrough: fewest };
  }
}
