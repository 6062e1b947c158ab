import { ApiError, type OutpostClient } from '@outpost/shared';

export const SERVICE = 'services/devices.outpost';
export const DEVICES = `${SERVICE}/resources/devices`;
export const PROJECT_PLAN = `${SERVICE}/plans/project-small`;
export const ORGANIZATION_PLAN = `${SERVICE}/plans/organization-small`;
export const SERVICE_PLAN = `${SERVICE}/plans/service`;

export const limitName = (project: string, region: string): string =>
  `${project}/limits/${region}/devices.outpost/devices`;
export const poolName = (owner: string, region: string): string =>
  `${owner}/limitPools/${region}/devices.outpost/devices`;

export interface LimitJson {
  name: string;
  configuredLimit: number;
  activeLimit: number;
  usage: number;
  sources: string[];
}

export interface PoolJson {
  name: string;
  configuredSize: number;
  activeSize: number;
  reserved: number;
  source: string;
}

export interface RequestJson {
  name: string;
  approver: string;
  service: string;
  status: { conclusion: string; reason?: string };
}

/** The ApiError a refused call throws (fails the test when the call succeeds). */
export async function refused(call: Promise<unknown>): Promise<ApiError> {
  try {
    await call;
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected the call to be refused');
}

/** Small steps every limits scenario takes, through the REST API. */
export function limitsApi(client: OutpostClient) {
  return {
    organization: (id: string, fields: Record<string, unknown> = {}) =>
      client.create<Record<string, unknown>>('', 'organizations', { name: `organizations/${id}`, ...fields }),
    project: (id: string, regions: string[], fields: Record<string, unknown> = {}) =>
      client.create<Record<string, unknown>>('', 'projects', { name: `projects/${id}`, regions, ...fields }),
    plan: (owner: string, id: string, planLevel: string, value: number, fields: Record<string, unknown> = {}) =>
      client.create<Record<string, unknown>>(owner, 'plans', {
        name: `${owner}/plans/${id}`,
        planLevel,
        resourceLimits: [{ resource: DEVICES, value }],
        ...fields,
      }),
    setPlanValue: (plan: string, value: number) =>
      client.update<Record<string, unknown>>(
        { name: plan, resourceLimits: [{ resource: DEVICES, value }] },
        { updateMask: 'resourceLimits' },
      ),
    limit: (project: string, region: string) => client.get<LimitJson>(limitName(project, region)),
    pool: (owner: string, region: string) => client.get<PoolJson>(poolName(owner, region)),
    request: (parent: string, id: string, request: Record<string, unknown>) =>
      client.create<RequestJson>(parent, 'planAssignmentRequests', {
        name: `${parent}/planAssignmentRequests/${id}`,
        request,
      }),
    accept: (name: string, body: Record<string, unknown> = {}) =>
      client.request<{ acceptedPlan?: Record<string, unknown> }>('POST', `/v1/${name}:accept`, { body }),
    decline: (name: string, body: Record<string, unknown> = {}) =>
      client.request<Record<string, unknown>>('POST', `/v1/${name}:decline`, { body }),
    device: (project: string, region: string, id: string) =>
      client.create<Record<string, unknown>>(`${project}/regions/${region}`, 'devices', {
        name: `${project}/regions/${region}/devices/${id}`,
      }),
    /** the one PlanAssignment of an entity for the devices service */
    assignment: async (entity: string) => {
      const page = await client.list<Record<string, unknown>>(entity, 'planAssignments');
      const found = (page['planAssignments'] ?? []).find((pa) => pa['service'] === SERVICE);
      if (!found) throw new Error(`${entity} has no devices assignment`);
      return found;
    },
  };
}

export type LimitsApi = ReturnType<typeof limitsApi>;
