import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { perAttempt } from '../helpers/per-attempt.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import {
  DEVICES,
  limitName,
  limitsApi,
  poolName,
  refused,
  SERVICE,
  type LimitsApi,
  type RequestJson,
} from './limits-fixture.js';

/** One scenario per rule of spec 001 "Errors". */
describe('spec 001 Errors', () => {
  let server: TestServer;
  let api: LimitsApi;

  beforeAll(async () => {
    server = await startTestServer();
    api = limitsApi(server.admin);
    await api.organization('org');
    await api.project('proj', ['r1'], { parentOrganization: 'organizations/org' });
  });
  afterAll(async () => {
    await server.dispose();
  });

  it('1: an update whose cas comparison fails is ABORTED and changes nothing', async (context) => {
    const id = perAttempt(context, 'cas');
    const plan = `organizations/org/plans/${id}`;
    await api.plan('organizations/org', id, 'PROJECT', 7, { displayName: 'A' });
    const err = await refused(
      server.admin.update(
        { name: plan, displayName: 'B' },
        { updateMask: 'displayName', cas: { conditionalState: { displayName: 'not A' }, fieldMask: 'displayName' } },
      ),
    );
    expect(err.status).toBe('ABORTED');
    expect((await server.admin.get<Record<string, unknown>>(plan))['displayName']).toBe('A');
    const ok = await server.admin.update<Record<string, unknown>>(
      { name: plan, displayName: 'B' },
      { updateMask: 'displayName', cas: { conditionalState: { displayName: 'A' }, fieldMask: 'displayName' } },
    );
    expect(ok['displayName']).toBe('B');

    const limit = limitName('projects/proj', 'r1');
    const stale = await refused(
      server.admin.update(
        { name: limit, metadata: { labels: { a: 'b' } } },
        { updateMask: 'metadata.labels', cas: { conditionalState: { usage: 5 }, fieldMask: 'usage' } },
      ),
    );
    expect(stale.status).toBe('ABORTED');
  });

  it('2: deleting a missing resource is NOT_FOUND unless allow_missing', async () => {
    for (const name of [
      'organizations/org/plans/nope',
      'organizations/org/acceptedPlans/nope',
      'projects/proj/planAssignments/nope',
      'projects/proj/planAssignmentRequests/nope',
      limitName('projects/proj', 'nowhere'),
      poolName('organizations/org', 'nowhere'),
    ]) {
      expect((await refused(server.admin.delete(name))).status).toBe('NOT_FOUND');
      await server.admin.delete(name, { allowMissing: true });
    }
  });

  it('3: update with allow_missing creates a missing AcceptedPlan, Plan, PlanAssignment or PlanAssignmentRequest', async (context) => {
    const upserted = `organizations/org/plans/${perAttempt(context, 'upserted')}`;
    const upsert = perAttempt(context, 'upsert');
    const things = `services/${perAttempt(context, 'things')}.outpost`;
    const plan = await server.admin.update<Record<string, unknown>>(
      {
        name: upserted,
        planLevel: 'PROJECT',
        resourceLimits: [{ resource: DEVICES, value: 3 }],
      },
      { allowMissing: true },
    );
    expect(plan).toMatchObject({ service: SERVICE, generation: 1 });

    await api.project(upsert, ['r1'], { parentOrganization: 'organizations/org' });
    const accepted = `organizations/org/acceptedPlans/project-${upsert}.devices.outpost`;
    await server.admin.delete(accepted);
    expect((await refused(api.limit(`projects/${upsert}`, 'r1'))).status).toBe('NOT_FOUND');
    const created = await server.admin.update<Record<string, unknown>>(
      {
        name: accepted,
        defaultRegionalPlan: upserted,
        assignee: { projectAssignee: `projects/${upsert}` },
      },
      { allowMissing: true },
    );
    expect(created['allowances']).toEqual([{ resource: DEVICES, value: 3, region: 'r1' }]);
    expect((await api.limit(`projects/${upsert}`, 'r1')).configuredLimit).toBe(3);

    const request = await server.admin.update<RequestJson>(
      {
        name: `projects/${upsert}/planAssignmentRequests/upserted`,
        request: { assign: { plan: 'organizations/org/plans/cas' } },
      },
      { allowMissing: true },
    );
    expect(request.status.conclusion).toBe('PENDING');

    await api.plan(SERVICE, perAttempt(context, 'service-own-2'), 'SERVICE', 5);
    await server.admin.create('', 'services', { name: things });
    await server.admin.create(things, 'plans', {
      name: `${things}/plans/own`,
      planLevel: 'SERVICE',
      resourceLimits: [{ resource: `${things}/resources/things`, value: 9 }],
    });
    const own = await server.admin.update<Record<string, unknown>>(
      {
        name: `${things}/planAssignments/mine`,
        defaultRegionalPlan: `${things}/plans/own`,
      },
      { allowMissing: true },
    );
    expect(own['source']).toBe(`${things}/acceptedPlans/mine`);
    expect((await server.admin.get<Record<string, unknown>>(`${things}/acceptedPlans/mine`))['assignee']).toEqual({
      serviceAssignee: things,
    });
  });

  it('3: allow_missing does not exist for Limit and LimitPool: nothing is created', async () => {
    for (const name of [limitName('projects/proj', 'r9'), poolName('organizations/org', 'r9')]) {
      const err = await refused(
        server.admin.update({ name, metadata: { labels: { x: 'y' } } }, { allowMissing: true }),
      );
      expect(err.status).toBe('INVALID_ARGUMENT');
      expect((await refused(server.admin.get(name))).status).toBe('NOT_FOUND');
    }
    const create = await refused(
      server.admin.create('projects/proj', 'limits', { name: limitName('projects/proj', 'r9') }),
    );
    expect(create.status).toBe('UNIMPLEMENTED');
  });

  it('4: BatchGet lists absent names in missing instead of failing', async () => {
    const present = limitName('projects/proj', 'r1');
    const absent = limitName('projects/proj', 'r7');
    const answer = await server.admin.batchGet<{ name: string }>('limits', [present, absent]);
    expect(answer['limits']?.map((l) => l.name)).toEqual([present]);
    expect(answer.missing).toEqual([absent]);
    const pools = await server.admin.batchGet<{ name: string }>('limitPools', [
      poolName('organizations/org', 'r1'),
      poolName('organizations/xx', 'r1'),
    ]);
    expect(pools['limitPools']).toHaveLength(1);
    expect(pools.missing).toEqual([poolName('organizations/xx', 'r1')]);
  });

  it('5: a limit cannot be sized beyond its parent pool', async (context) => {
    const hugeId = perAttempt(context, 'huge');
    const huge = `organizations/org/plans/${hugeId}`;
    await api.plan('organizations/org', hugeId, 'PROJECT', 200_000);
    const accepted = 'organizations/org/acceptedPlans/project-proj.devices.outpost';
    const before = await api.pool('organizations/org', 'r1');
    const err = await refused(
      server.admin.update({ name: accepted, defaultRegionalPlan: huge }, { updateMask: 'defaultRegionalPlan' }),
    );
    expect(err.status).toBe('FAILED_PRECONDITION');
    expect(err.message).toContain(poolName('organizations/org', 'r1'));
    expect((await api.limit('projects/proj', 'r1')).configuredLimit).toBe(1000);
    expect(await api.pool('organizations/org', 'r1')).toEqual(before);

    const pending = await api.request('projects/proj', hugeId, { assign: { plan: huge } });
    expect(pending.status.conclusion).toBe('PENDING');
    expect((await refused(api.accept(pending.name))).status).toBe('FAILED_PRECONDITION');
    expect((await server.admin.get<RequestJson>(pending.name)).status.conclusion).toBe('PENDING');
  });

  it('5: a limit pool cannot be sized beyond its parent pool', async (context) => {
    const child = perAttempt(context, 'child');
    await api.plan(SERVICE, perAttempt(context, 'org-medium'), 'ORGANIZATION', 5000, { businessTier: 'MEDIUM' });
    await api.organization(child, {
      parentOrganization: 'organizations/org',
      regions: ['r1'],
      businessTier: 'MEDIUM',
    });
    expect((await api.pool(`organizations/${child}`, 'r1')).configuredSize).toBe(5000);
    const orgHuge = perAttempt(context, 'org-huge');
    await api.plan(SERVICE, orgHuge, 'ORGANIZATION', 150_000);
    const err = await refused(
      server.admin.update(
        {
          name: `organizations/org/acceptedPlans/organization-${child}.devices.outpost`,
          defaultRegionalPlan: `${SERVICE}/plans/${orgHuge}`,
        },
        { updateMask: 'defaultRegionalPlan' },
      ),
    );
    expect(err.status).toBe('FAILED_PRECONDITION');
    expect((await api.pool(`organizations/${child}`, 'r1')).configuredSize).toBe(5000);
  });

  it('5: plan assignments without backing limits are refused for organizations and services; the system is exempt', async (context) => {
    const orgPlan = `services/things.outpost/plans/${perAttempt(context, 'org')}`;
    // things.outpost has no pools for organizations to draw from: its own plan covers no region yet
    await server.admin.create('services/things.outpost', 'plans', {
      name: orgPlan,
      planLevel: 'ORGANIZATION',
      resourceLimits: [{ resource: 'services/things.outpost/resources/things', value: 100 }],
    });
    const err = await refused(
      server.admin.create('services/things.outpost', 'acceptedPlans', {
        name: 'services/things.outpost/acceptedPlans/for-org',
        defaultRegionalPlan: orgPlan,
        assignee: { organizationAssignee: 'organizations/org' },
      }),
    );
    expect(err.status).toBe('FAILED_PRECONDITION');
    expect(err.message).toContain('services/things.outpost/limitPools/r1/things.outpost/things');

    const direct = await refused(
      server.admin.create('projects/proj', 'planAssignments', {
        name: 'projects/proj/planAssignments/direct',
        defaultRegionalPlan: 'organizations/org/plans/cas',
      }),
    );
    expect(direct.status).toBe('FAILED_PRECONDITION');

    // the system assigns itself without limits: a service plan far above anything is accepted
    const unbounded = perAttempt(context, 'unbounded');
    await api.plan(SERVICE, unbounded, 'SERVICE', 9_000_000_000_000);
    const own = await api.assignment(SERVICE);
    await server.admin.update(
      { name: String(own['source']), defaultRegionalPlan: `${SERVICE}/plans/${unbounded}` },
      { updateMask: 'defaultRegionalPlan' },
    );
    expect((await api.pool(SERVICE, 'r1')).configuredSize).toBe(9_000_000_000_000);
  });
});
