import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { ApiError } from '@outpost/shared';
import { expect, it } from 'vitest';
import { createDeviceService } from '../../src/devices/device-service.js';
import { LimitsContext } from '../../src/limits/context.js';
import { isEmptyDiff, recomputeTree } from '../../src/limits/core/index.js';
import { createLimitsService, type LimitsService } from '../../src/limits/index.js';
import { loadWorld, type Scope } from '../../src/limits/scope.js';
import { ResourceEngine } from '../../src/resources/resource-engine.js';
import type { ResourceHandle } from '../../src/resources/resource-handle.js';
import { where } from '../../src/resources/resource-query.js';
import { describeStorages, type FreshStorage, withoutFlush } from '../helpers/storages.js';
import { DEVICES, SERVICE } from './limits-fixture.js';

/**
 * The whole service under random writes (through the engine's user operations, as the REST layer calls them):
 * after every write, the part-of-tree settling of each rule leaves exactly what a whole-tree recompute gives;
 * usage equals the devices that exist; a refused write leaves the change log where it was.
 */
const ORGS = ['organizations/oa', 'organizations/ob'] as const;
const PROJECTS = ['projects/pa', 'projects/pb', 'projects/pc'] as const;
const REGIONS = ['r1', 'r2'] as const;
const PLANS = ['organizations/oa/plans/p3', `${SERVICE}/plans/p5`, `${SERVICE}/plans/project-small`] as const;

interface World {
  engine: ResourceEngine;
  limits: LimitsService;
  devices: ResourceHandle;
  /** a second reader of the tree whose world model is built before the first write and follows the writes */
  follower: LimitsContext;
  requests: number;
}

function startWorld(fresh: FreshStorage): World {
  const engine = new ResourceEngine(withoutFlush(fresh()));
  const limits = createLimitsService(engine);
  const { devices } = createDeviceService(engine, { meteredBy: limits });
  const follower = new LimitsContext(engine);
  follower.attach(limits.handles);
  follower.world.build();
  limits.bootstrap();
  const h = limits.handles;
  h.organizations.create({ parent: '', resource: { name: ORGS[0], regions: ['r1'] } });
  h.organizations.create({ parent: '', resource: { name: ORGS[1], parentOrganization: ORGS[0] } });
  h.plans.create({
    parent: 'organizations/oa',
    resource: { name: PLANS[0], planLevel: 'PROJECT', resourceLimits: [{ resource: DEVICES, value: 3 }] },
  });
  h.plans.create({
    parent: SERVICE,
    resource: { name: PLANS[1], planLevel: 'PROJECT', resourceLimits: [{ resource: DEVICES, value: 5 }] },
  });
  return { engine, limits, devices, follower, requests: 0 };
}

type Op = { label: string; run: (w: World) => unknown };
const project = fc.constantFrom(...PROJECTS);
const regionList = fc.subarray([...REGIONS]);
const parent = fc.constantFrom('', ...ORGS);
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.tuple(project, regionList, parent).map(([p, regions, org]) => ({
    label: `create ${p} in ${regions.join('+')} under ${org || 'the service'}`,
    run: (w: World) =>
      w.limits.handles.projects.create({ parent: '', resource: { name: p, regions, parentOrganization: org } }),
  })),
  fc.tuple(project, regionList).map(([p, regions]) => ({
    label: `regions of ${p} := ${regions.join('+')}`,
    run: (w: World) => w.limits.handles.projects.update({ resource: { name: p, regions }, updateMask: 'regions' }),
  })),
  fc.tuple(project, parent).map(([p, org]) => ({
    label: `move ${p} under ${org || 'the service'}`,
    run: (w: World) =>
      w.limits.handles.projects.update({
        resource: { name: p, parentOrganization: org },
        updateMask: 'parentOrganization',
      }),
  })),
  project.map((p) => ({ label: `delete ${p}`, run: (w: World) => w.limits.handles.projects.delete({ name: p }) })),
  fc
    .tuple(project, fc.constantFrom(...REGIONS), fc.integer({ min: 0, max: 5 }), fc.boolean())
    .map(([p, r, n, remove]) => ({
      label: `${remove ? 'delete' : 'create'} device ${n} of ${p}/${r}`,
      run: (w: World) => {
        const name = `${p}/regions/${r}/devices/d${n}`;
        if (remove) return w.devices.delete({ name });
        return w.devices.create({ parent: `${p}/regions/${r}`, resource: { name } });
      },
    })),
  fc
    .tuple(
      project,
      fc.constantFrom(...PLANS),
      fc.constantFrom('', ...REGIONS),
      fc.integer({ min: -3, max: 3 }),
      fc.boolean(),
    )
    .map(([p, plan, region, extra, accept]) => ({
      label: `request ${plan} for ${p} in ${region || 'every region'} (+${extra}), ${accept ? 'accepted' : 'declined'}`,
      run: (w: World) => {
        const created = w.limits.handles.requests.create({
          parent: p,
          resource: {
            name: `${p}/planAssignmentRequests/q${++w.requests}`,
            request: { assign: { plan, region, extensions: [{ resource: DEVICES, value: extra }] } },
          },
        });
        const method = w.limits.customMethods.find((m) => m.verb === (accept ? 'accept' : 'decline'));
        const status = (created['status'] as { conclusion: string }).conclusion;
        if (status !== 'PENDING' || !method) return created;
        return method.handle({
          target: String(created['name']),
          body: {},
          query: {},
          principal: undefined,
          authorization: undefined,
          authorize: () => {},
          signal: new AbortController().signal,
        });
      },
    })),
  fc.tuple(fc.constantFrom(PLANS[0], PLANS[1]), fc.integer({ min: 0, max: 8 })).map(([plan, value]) => ({
    label: `plan ${plan} := ${value}`,
    run: (w: World) =>
      w.limits.handles.plans.update({
        resource: { name: plan, resourceLimits: [{ resource: DEVICES, value }] },
        updateMask: 'resourceLimits',
      }),
  })),
);

function problems(w: World): string[] {
  const found: string[] = [];
  const ctx = new LimitsContext(w.engine);
  ctx.attach(w.limits.handles);
  const world = loadWorld(ctx); // read afresh from the tables
  ctx.world.close();
  if (JSON.stringify(comparable(loadWorld(w.follower))) !== JSON.stringify(comparable(world))) {
    found.push('the world model kept up by the writes differs from the tables');
  }
  for (const kind of ['pools', 'limits', 'planAssignments', 'acceptedPlans'] as const) {
    const kept = byName(w.follower.world.stored[kind].values(), (row) => String(row.doc['name']));
    const stored = w.limits.handles[kind].query().map((row) => ({ id: row.id, doc: row.doc }));
    // PostgreSQL's jsonb gives a document's members in an order of its own
    if (!isDeepStrictEqual(kept, stored)) found.push(`the ${kind} rows kept up by the writes differ`);
  }
  const again = recomputeTree(world.hierarchy, world.assignments, world.plans, world.previous);
  if (!isEmptyDiff(again.diff)) found.push(`a whole-tree recompute still changes ${JSON.stringify(again.diff)}`);
  if (again.changedAssignments.length > 0)
    found.push(`stale assignments ${again.changedAssignments.map((a) => a.assignee).join()}`);
  for (const limit of world.previous.limits) {
    const [, p, , region] = limit.name.split('/');
    const devices = w.devices.table.count([where.parent(`projects/${p}/regions/${region}`)]);
    if (limit.usage !== devices) found.push(`${limit.name}: usage ${limit.usage}, devices ${devices}`);
    if (limit.usage > limit.activeLimit) found.push(`${limit.name}: usage above active`);
  }
  return found;
}

function byName<T>(items: readonly T[], nameOf: (item: T) => string): T[] {
  return [...items].sort((a, b) => (nameOf(a) < nameOf(b) ? -1 : nameOf(a) > nameOf(b) ? 1 : 0));
}

/** What a whole-tree recompute reads, in name order. */
function comparable(scope: Scope): unknown {
  const named = <T extends { name: string }>(items: readonly T[]): T[] => byName(items, (item) => item.name);
  const assignments = scope.assignments.map((a) => ({ ...a, name: `${a.assignee} ${a.service}` }));
  return {
    organizations: named(scope.hierarchy.organizations),
    projects: named(scope.hierarchy.projects),
    services: named(scope.hierarchy.services ?? []),
    assignments: named(assignments).map((a) => ({ ...a, ref: scope.refs.get(a.name) })),
    plans: named([...scope.plans.values()]),
    pools: named(scope.previous.limitPools),
    limits: named(scope.previous.limits),
  };
}

describeStorages('limits service invariants under random writes', (fresh, kind) => {
  it('keeps every pool and limit where a whole-tree recompute puts it', () => {
    const outcomes = { done: 0, refused: 0 };
    fc.assert(
      fc.property(fc.array(op, { minLength: 5, maxLength: 25 }), (ops) => {
        const w = startWorld(fresh);
        try {
          for (const { label, run } of ops) {
            const head = w.engine.log.head();
            try {
              run(w);
              outcomes.done++;
            } catch (err) {
              if (!(err instanceof ApiError)) throw err;
              outcomes.refused++;
              expect({ label, refusedWriteChangedLog: w.engine.log.head() !== head }).toEqual({
                label,
                refusedWriteChangedLog: false,
              });
            }
            expect({ label, problems: problems(w) }).toEqual({ label, problems: [] });
          }
        } finally {
          w.engine.storage.close();
        }
      }),
      // each run opens a database of its own and reads the whole tree after every write: dearer on PostgreSQL
      { numRuns: kind === 'sqlite' ? 40 : 8 },
    );
    expect(outcomes.done).toBeGreaterThan(outcomes.refused / 4);
    expect(outcomes.refused).toBeGreaterThan(0);
  });
});
