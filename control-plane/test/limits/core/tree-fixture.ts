import { indexPlans, type AssigneeAssignment, type Hierarchy } from '../../../src/limits/core/index.js';
import { DEVICES, SERVICE, plan, spec } from './fixtures.js';

/** services/devices.outpost → organizations/acme → organizations/acme-eu → projects/factory; projects/solo under the service. */
export const servicePlan = plan('service', 'SERVICE', { [DEVICES]: 1000 });
export const orgPlan = plan('org', 'ORGANIZATION', { [DEVICES]: 100 });
export const subOrgPlan = plan('suborg', 'ORGANIZATION', { [DEVICES]: 50 });
export const projectPlan = plan('project', 'PROJECT', { [DEVICES]: 10 });
export const plans = indexPlans([servicePlan, orgPlan, subOrgPlan, projectPlan]);

export const hierarchy: Hierarchy = {
  organizations: [
    { name: 'organizations/acme-eu', parentOrganization: 'organizations/acme' },
    { name: 'organizations/acme' },
  ],
  projects: [
    { name: 'projects/factory', parentOrganization: 'organizations/acme-eu', regions: ['eu-west', 'us-east'] },
    { name: 'projects/solo', regions: ['us-east'] },
  ],
};

export const assignments: AssigneeAssignment[] = [
  { assignee: SERVICE, ...spec(servicePlan.name) },
  { assignee: 'organizations/acme', ...spec(orgPlan.name) },
  { assignee: 'organizations/acme-eu', ...spec(subOrgPlan.name) },
  { assignee: 'projects/factory', ...spec(projectPlan.name) },
  { assignee: 'projects/solo', ...spec(projectPlan.name) },
];

export const poolOf = (owner: string, region: string): string =>
  `${owner}/limitPools/${region}/devices.outpost/devices`;
export const limitOf = (project: string, region: string): string =>
  `${project}/limits/${region}/devices.outpost/devices`;
