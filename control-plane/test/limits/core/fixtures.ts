import type { Allowance, AssignmentSpec, Limit, Plan, PlanLevel } from '../../../src/limits/core/index.js';

export const SERVICE = 'services/devices.outpost';
export const DEVICES = 'services/devices.outpost/resources/devices';
export const PODS = 'services/devices.outpost/resources/pods';

export function plan(name: string, level: PlanLevel, values: Partial<Record<string, number>>, generation = 1): Plan {
  return {
    name: `${SERVICE}/plans/${name}`,
    service: SERVICE,
    resourceLimits: Object.entries(values).map(([resource, value]) => ({ resource, value: value ?? 0 })),
    planLevel: level,
    generation,
  };
}

export function spec(defaultPlan: string, more: Partial<AssignmentSpec> = {}): AssignmentSpec {
  return {
    service: SERVICE,
    defaultRegionalPlan: defaultPlan,
    regionalPlanOverrides: [],
    extensions: [],
    ...more,
  };
}

export const allowance = (resource: string, value: number, region = ''): Allowance => ({ resource, value, region });

export function limit(fields: Partial<Limit> & Pick<Limit, 'configuredLimit' | 'activeLimit' | 'usage'>): Limit {
  return {
    name: 'projects/p1/limits/us-east/devices.outpost/devices',
    service: SERVICE,
    resource: DEVICES,
    region: 'us-east',
    sources: ['services/devices.outpost/limitPools/us-east/devices.outpost/devices'],
    ...fields,
  };
}
