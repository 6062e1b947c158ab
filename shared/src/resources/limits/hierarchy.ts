import { z } from 'zod';
import { ID_RULES, NamePattern } from '../../names/index.js';
import type { ResourceDefinition } from '../definition.js';
import { META_FILTER_FIELDS, MetaSchema } from '../meta.js';
import { BUSINESS_TIERS, RESOURCE_MANAGER_SERVICE } from './common.js';

/**
 * The service → organizations → projects hierarchy of spec 001 ("What the service does" 1): a service owns
 * the first-level limit pools, organizations receive pools from the service or a parent organization, and
 * projects (with their list of regions) receive the final limits.
 */

const regions = z.array(z.string()).optional();

export const ServiceSchema = z.object({
  name: z.string(),
  metadata: MetaSchema.optional(),
  displayName: z.string().max(256).optional(),
  /** regions the service holds pools in even before any project is there */
  regions,
});
export type Service = z.infer<typeof ServiceSchema>;

export const OrganizationSchema = z.object({
  name: z.string(),
  metadata: MetaSchema.optional(),
  displayName: z.string().max(256).optional(),
  /** organizations/{organization}; absent: a first-level organization, fed by the services */
  parentOrganization: z.string().optional(),
  /** regions the organization holds pools in even before one of its projects is there */
  regions,
  /** chooses the default plans given at creation */
  businessTier: z.enum(BUSINESS_TIERS).optional(),
});
export type Organization = z.infer<typeof OrganizationSchema>;

export const ProjectSchema = z.object({
  name: z.string(),
  metadata: MetaSchema.optional(),
  displayName: z.string().max(256).optional(),
  /** organizations/{organization}; absent: the project sits directly under the services */
  parentOrganization: z.string().optional(),
  /** region ids the project is present in; plan values apply in each */
  regions,
  /** chooses the default plans given at creation */
  businessTier: z.enum(BUSINESS_TIERS).optional(),
});
export type Project = z.infer<typeof ProjectSchema>;

export const SERVICE_PATTERN = new NamePattern('services/{service}', { service: ID_RULES.service });
export const ORGANIZATION_PATTERN = new NamePattern('organizations/{organization}', { organization: ID_RULES.device });
export const PROJECT_PATTERN = new NamePattern('projects/{project}', { project: ID_RULES.device });

const entityFilterFields = [
  ...META_FILTER_FIELDS,
  { path: 'displayName', type: 'string' },
  { path: 'regions', type: 'stringList' },
] as const;

export const serviceDefinition: ResourceDefinition<Service> = {
  kind: 'Service',
  singular: 'service',
  plural: 'services',
  service: RESOURCE_MANAGER_SERVICE,
  patterns: [SERVICE_PATTERN],
  idRule: ID_RULES.service,
  schema: ServiceSchema,
  filterSchema: { fields: entityFilterFields },
  outputOnly: [],
  views: { BASIC: ['displayName'], DETAIL: ['displayName', 'regions'] },
};

export const organizationDefinition: ResourceDefinition<Organization> = {
  kind: 'Organization',
  singular: 'organization',
  plural: 'organizations',
  service: RESOURCE_MANAGER_SERVICE,
  patterns: [ORGANIZATION_PATTERN],
  idRule: ID_RULES.device,
  schema: OrganizationSchema,
  filterSchema: {
    fields: [
      ...entityFilterFields,
      { path: 'parentOrganization', type: 'name' },
      { path: 'businessTier', type: 'enum', enumValues: BUSINESS_TIERS },
    ],
  },
  outputOnly: [],
  views: {
    BASIC: ['displayName', 'parentOrganization'],
    DETAIL: ['displayName', 'parentOrganization', 'regions', 'businessTier'],
  },
};

export const projectDefinition: ResourceDefinition<Project> = {
  kind: 'Project',
  singular: 'project',
  plural: 'projects',
  service: RESOURCE_MANAGER_SERVICE,
  patterns: [PROJECT_PATTERN],
  idRule: ID_RULES.device,
  schema: ProjectSchema,
  filterSchema: {
    fields: [
      ...entityFilterFields,
      { path: 'parentOrganization', type: 'name' },
      { path: 'businessTier', type: 'enum', enumValues: BUSINESS_TIERS },
    ],
  },
  outputOnly: [],
  views: {
    BASIC: ['displayName', 'parentOrganization', 'regions'],
    DETAIL: ['displayName', 'parentOrganization', 'regions', 'businessTier'],
  },
};
