import type { Organization, Project } from '@outpost/shared';
import { saveAssignment, findAssignment } from './assignment-store.js';
import { where } from '../resources/resource-query.js';
import type { LimitsContext } from './context.js';
import { entityKind, materializeAssignment, type Plan } from './core/index.js';
import type { HierarchyReader } from './hierarchy-reader.js';
import { ownerOf } from './names.js';
import { planOf } from './records.js';

const TIER_RANK: Readonly<Record<string, number>> = { SMALL: 0, MEDIUM: 1, LARGE: 2 };

/**
 * The default plan per service for a new project or organization (spec 001 Plan.business_tier): among the
 * plans of its level whose business tier is set, those of its own tier when it names one (else the smallest
 * tier), preferring an organization's plan above it (nearest first) to the service's.
 */
export function defaultPlansFor(ctx: LimitsContext, reader: HierarchyReader, entity: Organization | Project): Plan[] {
  const name = entity.name;
  const level = entityKind(name) === 'project' ? 'PROJECT' : 'ORGANIZATION';
  const tier = entity.businessTier;
  const wanted = tier !== undefined && tier !== 'UNDEFINED' ? tier : undefined;
  const ancestors = reader.ancestors(name);
  const plans = ctx.h.plans;
  const candidates = plans
    .list({
      where: [
        where.equals('planLevel', level),
        where.present('businessTier'),
        where.not(where.equals('businessTier', 'UNDEFINED')),
      ],
    })
    .map((doc) => planOf(doc))
    .filter((plan) => wanted === undefined || plan.businessTier === wanted);
  const distance = (plan: Plan): number => {
    const owner = ownerOf(plan.name);
    if (entityKind(owner) === 'service') return ancestors.length;
    const i = ancestors.indexOf(owner);
    return i < 0 ? Number.POSITIVE_INFINITY : i;
  };
  const best = new Map<string, Plan>();
  const better = (a: Plan, b: Plan): boolean => {
    const byTier = (TIER_RANK[a.businessTier ?? ''] ?? 9) - (TIER_RANK[b.businessTier ?? ''] ?? 9);
    if (byTier !== 0) return byTier < 0;
    const byOwner = distance(a) - distance(b);
    return byOwner !== 0 ? byOwner < 0 : a.name < b.name;
  };
  for (const plan of candidates) {
    if (distance(plan) === Number.POSITIVE_INFINITY) continue;
    const held = best.get(plan.service);
    if (!held || better(plan, held)) best.set(plan.service, plan);
  }
  return [...best.values()];
}

/** Gives a new project or organization its default plans (the caller settles the tree afterwards). */
export function assignDefaultPlans(ctx: LimitsContext, reader: HierarchyReader, entity: Organization | Project): void {
  const name = entity.name;
  const regions = reader.effectiveRegions(name);
  const assigner = (service: string): string => reader.parentOf(name) ?? service;
  for (const plan of defaultPlansFor(ctx, reader, entity)) {
    if (findAssignment(ctx, name, plan.service)) continue;
    const spec = { service: plan.service, defaultRegionalPlan: plan.name, regionalPlanOverrides: [], extensions: [] };
    const next = materializeAssignment(spec, new Map([[plan.name, plan]]), regions);
    saveAssignment(ctx, { assignee: name, assigner: assigner(plan.service), next });
  }
}
