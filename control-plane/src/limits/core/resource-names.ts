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
export function limitId(region: string, resource: string): string {
  const ref = parseResourceRef(resource);
  return `${region}/${ref.serviceDomain}/${ref.kind}`;
}

export const poolName = (owner: string, region: string, resource: string): string =>
  `${owner}/limitPools/${limitId(region, resource)}`;

export const limitName = (project: string, region: string, resource: string): string =>
  `${project}/limits/${limitId(region, resource)}`;

export function entityKind(name: string): EntityKind {
  const match = ENTITY.exec(name);
  if (!match) throw invalidArgument(`not a service, organization or project: "${name}"`);
  if (match[1] === 'services') return 'service';
  return match[1] === 'organizations' ? 'organization' : 'project';
}
