import { z } from 'zod';

/** The service id of the six limits resources (spec 001 {limits_service}). */
export const LIMITS_SERVICE = 'limits.outpost';
/** The service id of the hierarchy resources: services, organizations and projects. */
export const RESOURCE_MANAGER_SERVICE = 'resourcemanager.outpost';

export const PLAN_LEVELS = ['UNDEFINED', 'SERVICE', 'ORGANIZATION', 'PROJECT'] as const;
export type PlanLevelName = (typeof PLAN_LEVELS)[number];

/** UNDEFINED makes a plan non-default; the others choose the default plan of a new project or organization. */
export const BUSINESS_TIERS = ['UNDEFINED', 'SMALL', 'MEDIUM', 'LARGE'] as const;
export type BusinessTierName = (typeof BUSINESS_TIERS)[number];

export const CONCLUSIONS = ['UNDEFINED', 'PENDING', 'APPROVED', 'REJECTED'] as const;
export type ConclusionName = (typeof CONCLUSIONS)[number];

/** int64 in JSON: a safe integer. */
export const int64 = z.number().int();

/** A per-resource amount in one region, or in every region when `region` is empty or absent. */
export const AllowanceSchema = z.object({
  /** services/{service}/resources/{Resource} */
  resource: z.string().min(1),
  value: int64,
  region: z.string().optional(),
});
export type AllowanceJson = z.infer<typeof AllowanceSchema>;

export const RegionalPlanAssignmentSchema = z.object({
  plan: z.string().min(1),
  region: z.string().min(1),
  /** the plan's generation when it was applied (output only) */
  planGeneration: int64.optional(),
});

/** The fields a PlanAssignment and its AcceptedPlan share. */
export const assignmentFields = {
  defaultRegionalPlan: z.string().optional(),
  service: z.string().optional(),
  regionalPlanOverrides: z.array(RegionalPlanAssignmentSchema).optional(),
  extensions: z.array(AllowanceSchema).optional(),
  allowances: z.array(AllowanceSchema).optional(),
  appliedRegions: z.array(z.string()).optional(),
  appliedPlanSpecGeneration: int64.optional(),
};

export const ASSIGNMENT_OUTPUT_ONLY = ['allowances', 'appliedRegions', 'appliedPlanSpecGeneration'] as const;
