import { ApiError } from '@outpost/shared';
import { expect, it } from 'vitest';
import { createDeviceService } from '../../src/devices/device-service.js';
import { LimitsContext } from '../../src/limits/context.js';
import { isEmptyDiff, recomputeTree } from '../../src/limits/core/index.js';
import { createLimitsService } from '../../src/limits/index.js';
import { loadWorld } from '../../src/limits/scope.js';
import { ResourceEngine } from '../../src/resources/resource-engine.js';
import { describeStorages, type FreshStorage, withoutFlush } from '../helpers/storages.js';
import { DEVICES, limitName, poolName, PROJECT_PLAN, SERVICE } from './limits-fixture.js';

/**
 * A plan used by more than 200 assignees changes through the whole-tree recompute, which starts from the
 * world model held in memory: every limit and pool follows, a refused change leaves everything as it was
 * (the rollback makes the model read the tables it had followed again), and the next change is right.
 */
const PROJECTS = Array.from({ length: 210 }, (_, i) => `projects/wt-${i}`);

function setUp(fresh: FreshStorage) {
  const engine = new ResourceEngine(withoutFlush(fresh()));
  const limits = createLimitsService(engine);
  const { devices } = createDeviceService(engine, { meteredBy: limits });
  limits.bootstrap();
  const h = limits.handles;
  // directly under the service, in r1: each gets project-small (1,000) from the service pool
  for (const name of PROJECTS) h.projects.create({ parent: '', resource: { name, regions: ['r1'] } });
  devices.create({ parent: `${PROJECTS[0]}/regions/r1`, resource: { name: `${PROJECTS[0]}/regions/r1/devices/d1` } });
  const setPlan = (value: number) =>
    h.plans.update({
      resource: { name: PROJECT_PLAN, resourceLimits: [{ resource: DEVICES, value }] },
      updateMask: 'resourceLimits',
    });
  const limit = (project: string) => h.limits.find(limitName(project, 'r1')) as Record<string, unknown>;
  const servicePool = () => h.pools.find(poolName(SERVICE, 'r1')) as Record<string, unknown>;
  /** What a whole-tree recompute over a fresh read of the tables would still change (nothing, when settled). */
  const unsettled = () => {
    const ctx = new LimitsContext(engine);
    ctx.attach(h);
    const world = loadWorld(ctx);
    ctx.world.close();
    const again = recomputeTree(world.hierarchy, world.assignments, world.plans, world.previous);
    return isEmptyDiff(again.diff) && again.changedAssignments.length === 0
      ? []
      : [again.diff, again.changedAssignments];
  };
  return { h, setPlan, limit, servicePool, unsettled };
}

describeStorages('a plan change over the whole tree', (fresh) => {
  it('moves every dependent limit and pool, refuses what the service pool cannot back, and goes on right', () => {
    const { h, setPlan, limit, servicePool, unsettled } = setUp(fresh);

    /** Every limit at `value`, the one device still counted, the service pool backing them all, nothing left to settle. */
    const expectSettledAt = (value: number) => {
      for (const project of PROJECTS)
        expect(limit(project)).toMatchObject({ configuredLimit: value, activeLimit: value });
      expect(limit(PROJECTS[0]!)['usage']).toBe(1);
      expect(servicePool()['reserved']).toBe(PROJECTS.length * value);
      expect(unsettled()).toEqual([]);
    };

    setPlan(1_500);
    expectSettledAt(1_500);

    // 210 × 5,000,000 is beyond the service's own 1,000,000,000 in r1
    const generation = (h.plans.find(PROJECT_PLAN) as Record<string, unknown>)['generation'];
    let refusal: unknown;
    try {
      setPlan(5_000_000);
    } catch (err) {
      refusal = err;
    }
    expect(refusal).toBeInstanceOf(ApiError);
    expect((refusal as ApiError).status).toBe('FAILED_PRECONDITION');
    expect((h.plans.find(PROJECT_PLAN) as Record<string, unknown>)['generation']).toBe(generation);
    for (const project of PROJECTS) expect(limit(project)['configuredLimit']).toBe(1_500);

    setPlan(2_000);
    expectSettledAt(2_000);
  });
});
