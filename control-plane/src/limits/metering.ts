import { failedPrecondition, resourceExhausted } from '@outpost/shared';
import type { CheckingRules } from '../resources/resource-rules.js';
import type { LimitsContext } from './context.js';
import { limitName, needsSettling, release, tryConsume } from './core/index.js';
import { limitOf, regionsOf } from './records.js';
import { refreshPendingReasonsOf } from './pending-reasons.js';
import { settle } from './settle.js';
import { loadScope } from './scope.js';

/** Where one instance of a metered resource is counted. */
export interface MeteredPlace {
  project: string;
  region: string;
}

/**
 * A resource of another service that limits meters: that service describes it here and registers it at
 * wiring time (Metering.meter), so limits names no resource of another service.
 */
export interface MeteredResource {
  /** the service offering it: 'services/devices.outpost' */
  service: string;
  /** the service's display name, for the service record made at bootstrap */
  serviceDisplayName: string;
  /** what plans and limits count: 'services/devices.outpost/resources/devices' */
  resource: string;
  /** the instances in messages: 'devices' */
  noun: string;
  /** the project and region an instance (by name) is counted in; undefined when it is not metered */
  placeOf(name: string): MeteredPlace | undefined;
  /** how many instances are there now in a project's region (a new Limit starts from the truth) */
  countIn(place: MeteredPlace): number;
  /** the plans a fresh control plane starts with: a resource value per level (the service's own plan, SMALL tiers) */
  defaultLimits?: { service: number; organization: number; project: number };
}

/** What a metered service is wired to: the rules that make its writes take from and give back to its limits. */
export interface Metering {
  meter(resource: MeteredResource): CheckingRules;
}

/**
 * The rules of a metered resource: an instance takes one from its project's Limit in its region when created
 * (RESOURCE_EXHAUSTED beyond activeLimit) and gives it back when deleted. Both run inside the write's
 * transaction, so usage never drifts, and so do the reasons of the project's pending requests that speak of
 * it. An instance of a project that does not exist as a resource is not metered; one in a region its project
 * does not list is refused.
 */
export function meteredRules(ctx: LimitsContext, meter: MeteredResource): CheckingRules {
  return {
    beforeCreate: (doc) => {
      const place = meter.placeOf(String(doc['name']));
      if (!place) return;
      const project = ctx.h.projects.find(place.project);
      if (!project) return;
      if (!regionsOf(project).includes(place.region)) {
        throw failedPrecondition(
          `${place.project} is not in region ${place.region} (its regions: ${regionsOf(project).join(', ') || 'none'}); add the region to the project first`,
        );
      }
      const name = limitName(place.project, place.region, meter.resource);
      const stored = ctx.h.limits.find(name);
      if (!stored) {
        throw resourceExhausted(
          `${place.project} has no ${meter.noun} limit in region ${place.region}: it needs a plan for ${meter.service}`,
        );
      }
      const result = tryConsume(limitOf(stored), 1);
      if (!result.ok) throw resourceExhausted(result.reason);
      ctx.h.limits.patch(name, (limit) => ({ ...limit, usage: result.limit.usage }));
      refreshPendingReasonsOf(ctx, new Set([place.project]));
    },
    afterDelete: (doc) => {
      const place = meter.placeOf(String(doc['name']));
      if (!place) return;
      const name = limitName(place.project, place.region, meter.resource);
      const stored = ctx.h.limits.find(name);
      if (!stored) return;
      const released = release(limitOf(stored), 1);
      ctx.h.limits.patch(name, (limit) => ({ ...limit, usage: released.usage }));
      if (!ctx.h.projects.find(place.project)) return;
      if (needsSettling(released)) settle(ctx, loadScope(ctx, [place.project]));
      else refreshPendingReasonsOf(ctx, new Set([place.project]));
    },
  };
}
