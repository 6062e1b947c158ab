import { invalidArgument } from '@outpost/shared';

export type EntityKind = 'service' | 'organization' | 'project';

export interface ResourceRef {
  /** services/devices.outpost */
  service: string;
  /** devices.outpost */
  serviceDomain: string;
  /** devices */
  kind: string;
}

const RESOURCE_REF = /^services\/([a-zA-Z0-9-.]{1,128})\/resources\/([a-zA-Z]{1,128})$/;
const ENTITY = /^(services|organizations|projects)\/[^/]+$/;

/** Splits `services/{service}/resources/{Resource}`; anything else is INVALID_ARGUMENT. */
export function parseResourceRef(resource: string): ResourceRef {
  const match = RESOURCE_REF.exec(resource);
  if (!match?.[1] || !match[2]) throw invalidArgument(`not a resource reference: "${resource}"`);
  return { service: `services/${match[1]}`, serviceDomain: match[1], kind: match[2] };
}

/** The three-segment id of a Limit or LimitPool: `{region}/{serviceDomain}/{resourceKind}`. */
export const limitId = (region: string, resource: string): string => limitIdOf(region, parseResourceRef(resource));

export const poolName = (owner: string, region: string, resource: string): string =>
  poolNameOf(owner, region, parseResourceRef(resource));

export const limitName = (project: string, region: string, resource: string): string =>
  limitNameOf(project, region, parseResourceRef(resource));

const limitIdOf = (region: string, ref: ResourceRef): string => `${region}/${ref.serviceDomain}/${ref.kind}`;

/** poolName for an already parsed resource reference (hot loops parse each resource once). */
export const poolNameOf = (owner: string, region: string, ref: ResourceRef): string =>
  `${owner}/limitPools/${limitIdOf(region, ref)}`;

export const limitNameOf = (project: string, region: string, ref: ResourceRef): string =>
  `${project}/limits/${limitIdOf(region, ref)}`;

export function entityKind(name: string): EntityKind {
  const match = ENTITY.exec(name);
  if (!match) throw invalidArgument(`not a service, organization or project: "${name}"`);
  if (match[1] === 'services') return 'service';
  return match[1] === 'organizations' ? 'organization' : 'project';
}
