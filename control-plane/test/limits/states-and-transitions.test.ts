import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { perAttempt } from '../helpers/per-attempt.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import {
  DEVICES,
  limitName,
  limitsApi,
  refused,
  SERVICE,
  type LimitJson,
  type LimitsApi,
  type RequestJson,
} from './limits-fixture.js';

/** One scenario per row of spec 001 "States and transitions", through the REST API of a real control plane. */
describe('spec 001 States and transitions', () => {
  let server: TestServer;
  let api: LimitsApi;
  const orgAcceptedPlan = (org: string, project: string): string =>
    `${org}/acceptedPlans/project-${project.slice('projects/'.length)}.devices.outpost`;
  const serviceAcceptedPlan = (org: string): string =>
    `${SERVICE}/acceptedPlans/organization-${org.slice('organizations/'.length)}.devices.outpost`;

  beforeAll(async () => {
    server = await startTestServer();
    api = limitsApi(server.admin);
  });
  afterAll(async () => {
    await server.dispose();
  });

  /** The organization's assigner edits the project's accepted plan to another plan (the approver's own tool). */
  const setProjectPlan = (org: string, project: string, plan: string) =>
    server.admin.update<Record<string, unknown>>(
      { name: orgAcceptedPlan(org, project), defaultRegionalPlan: plan },
      { updateMask: 'defaultRegionalPlan' },
    );

  it('row 1: when configured_limit changes, active_limit equals it once the change is committed', async (context) => {
    const o1 = perAttempt(context, 'o1');
    const p1 = perAttempt(context, 'p1');
    await api.organization(o1);
    await api.project(p1, ['r1']);
    await server.admin.update(
      { name: `projects/${p1}`, parentOrganization: `organizations/${o1}` },
      { updateMask: 'parentOrganization' },
    );
    await api.plan(`organizations/${o1}`, 'tiny', 'PROJECT', 50);
    const limit = limitName(`projects/${p1}`, 'r1');
    expect(await api.limit(`projects/${p1}`, 'r1')).toMatchObject({ configuredLimit: 1000, activeLimit: 1000 });

    const controller = new AbortController();
    const changes = server.admin.watch<{ change: Record<string, { limit?: LimitJson }> }>(
      `/v1/${limit}:watch`,
      {},
      controller.signal,
    );
    const first = await changes.next();
    expect(JSON.stringify(first.value)).toContain('"configuredLimit":1000');

    const accepted = await setProjectPlan(`organizations/${o1}`, `projects/${p1}`, `organizations/${o1}/plans/tiny`);
    expect(accepted['allowances']).toEqual([{ resource: DEVICES, value: 50, region: 'r1' }]);
    const next = await changes.next();
    const watched = Object.values(next.value?.change ?? {})[0]?.limit;
    expect(watched).toMatchObject({ configuredLimit: 50, activeLimit: 50 });
    controller.abort();
    await changes.return(undefined);

    expect(await api.limit(`projects/${p1}`, 'r1')).toMatchObject({ configuredLimit: 50, activeLimit: 50 });
    const assignment = await api.assignment(`projects/${p1}`);
    expect(assignment).toMatchObject({
      defaultRegionalPlan: `organizations/${o1}/plans/tiny`,
      source: orgAcceptedPlan(`organizations/${o1}`, `projects/${p1}`),
      allowances: [{ resource: DEVICES, value: 50, region: 'r1' }],
    });
  });

  it('row 2: a limit lowered below its usage keeps its old active_limit, and settles once usage fits', async (context) => {
    const o2 = perAttempt(context, 'o2');
    const p2 = perAttempt(context, 'p2');
    await api.organization(o2);
    await api.project(p2, ['r1'], { parentOrganization: `organizations/${o2}` });
    await api.plan(`organizations/${o2}`, 'two', 'PROJECT', 2);
    for (const id of ['d1', 'd2', 'd3']) await api.device(`projects/${p2}`, 'r1', id);

    await setProjectPlan(`organizations/${o2}`, `projects/${p2}`, `organizations/${o2}/plans/two`);
    expect(await api.limit(`projects/${p2}`, 'r1')).toMatchObject({ configuredLimit: 2, activeLimit: 1000, usage: 3 });
    expect((await api.pool(`organizations/${o2}`, 'r1')).reserved).toBe(1000);
    expect((await refused(api.device(`projects/${p2}`, 'r1', 'd4'))).status).toBe('RESOURCE_EXHAUSTED');

    await server.admin.delete(`projects/${p2}/regions/r1/devices/d1`);
    expect(await api.limit(`projects/${p2}`, 'r1')).toMatchObject({ configuredLimit: 2, activeLimit: 2, usage: 2 });
    expect((await api.pool(`organizations/${o2}`, 'r1')).reserved).toBe(2);
  });

  it('row 3: a pool whose configured_size falls below reserved keeps active_size = reserved; the parent cannot reclaim it', async (context) => {
    const o3 = perAttempt(context, 'o3');
    const p3 = perAttempt(context, 'p3');
    await api.organization(o3);
    await api.project(p3, ['r1'], { parentOrganization: `organizations/${o3}` });
    const org500 = perAttempt(context, 'org-500');
    await api.plan(SERVICE, org500, 'ORGANIZATION', 500);
    const servicePoolBefore = await api.pool(SERVICE, 'r1');

    await server.admin.update(
      { name: serviceAcceptedPlan(`organizations/${o3}`), defaultRegionalPlan: `${SERVICE}/plans/${org500}` },
      { updateMask: 'defaultRegionalPlan' },
    );
    expect(await api.pool(`organizations/${o3}`, 'r1')).toMatchObject({
      configuredSize: 500,
      reserved: 1000,
      activeSize: 1000,
    });
    const servicePool = await api.pool(SERVICE, 'r1');
    expect(servicePool.reserved).toBe(servicePoolBefore.reserved - 100_000 + 1000);

    const err = await refused(api.project('p3b', ['r1'], { parentOrganization: `organizations/${o3}` }));
    expect(err.status).toBe('FAILED_PRECONDITION');
    expect(err.message).toContain(`organizations/${o3}/limitPools/r1/devices.outpost/devices`);
    expect((await refused(server.admin.get('projects/p3b'))).status).toBe('NOT_FOUND');
  });

  it('row 4: reserved of the source pool rises and falls with its child limits and pools', async (context) => {
    const o4 = perAttempt(context, 'o4');
    const p4 = perAttempt(context, 'p4');
    const p4b = perAttempt(context, 'p4b');
    await api.organization(o4);
    await api.project(p4, ['r1'], { parentOrganization: `organizations/${o4}` });
    const servicePool = async () => (await api.pool(SERVICE, 'r1')).reserved;
    expect((await api.pool(`organizations/${o4}`, 'r1')).reserved).toBe(1000);
    const serviceBefore = await servicePool();

    await api.project(p4b, ['r1'], { parentOrganization: `organizations/${o4}` });
    expect((await api.pool(`organizations/${o4}`, 'r1')).reserved).toBe(2000);

    await api.plan(`organizations/${o4}`, 'p50', 'PROJECT', 50);
    const lowered = await api.request(`projects/${p4b}`, 'smaller', {
      assign: { plan: `organizations/${o4}/plans/p50` },
    });
    expect(lowered.status.conclusion).toBe('APPROVED');
    expect((await api.pool(`organizations/${o4}`, 'r1')).reserved).toBe(1050);

    await server.admin.delete(`projects/${p4b}`);
    expect((await api.pool(`organizations/${o4}`, 'r1')).reserved).toBe(1000);
    expect(await servicePool()).toBe(serviceBefore);

    const org200k = perAttempt(context, 'org-200k');
    await api.plan(SERVICE, org200k, 'ORGANIZATION', 200_000);
    await server.admin.update(
      { name: serviceAcceptedPlan(`organizations/${o4}`), defaultRegionalPlan: `${SERVICE}/plans/${org200k}` },
      { updateMask: 'defaultRegionalPlan' },
    );
    expect(await servicePool()).toBe(serviceBefore + 100_000);
  });

  it('row 5: a new region in an entity list extends its accepted plans (and those above) into it', async (context) => {
    const o5 = perAttempt(context, 'o5');
    const p5 = perAttempt(context, 'p5');
    await api.organization(o5);
    await api.project(p5, ['r1'], { parentOrganization: `organizations/${o5}` });
    await refused(api.limit(`projects/${p5}`, 'east'));

    await server.admin.update({ name: `projects/${p5}`, regions: ['r1', 'east'] }, { updateMask: 'regions' });
    expect(await api.limit(`projects/${p5}`, 'east')).toMatchObject({
      configuredLimit: 1000,
      activeLimit: 1000,
      usage: 0,
    });
    const projectPlan = await server.admin.get<Record<string, unknown>>(
      orgAcceptedPlan(`organizations/${o5}`, `projects/${p5}`),
    );
    expect(projectPlan['appliedRegions']).toEqual(['east', 'r1']);
    const orgPlan = await server.admin.get<Record<string, unknown>>(serviceAcceptedPlan(`organizations/${o5}`));
    expect(orgPlan['appliedRegions']).toEqual(['east', 'r1']);
    expect(await api.pool(`organizations/${o5}`, 'east')).toMatchObject({ configuredSize: 100_000, reserved: 1000 });
    const own = await api.assignment(SERVICE);
    expect(own['appliedRegions']).toContain('east');

    await api.device(`projects/${p5}`, 'east', 'd1');
    const err = await refused(
      server.admin.update({ name: `projects/${p5}`, regions: ['r1'] }, { updateMask: 'regions' }),
    );
    expect(err.status).toBe('FAILED_PRECONDITION');
  });

  it('row 6: deleting a child project or organization deletes its accepted plan and returns its limits', async (context) => {
    const o6 = perAttempt(context, 'o6');
    const p6 = perAttempt(context, 'p6');
    await api.organization(o6, { regions: ['r1'] });
    await api.project(p6, ['r1'], { parentOrganization: `organizations/${o6}` });
    const serviceBefore = (await api.pool(SERVICE, 'r1')).reserved;
    expect((await api.pool(`organizations/${o6}`, 'r1')).reserved).toBe(1000);

    await server.admin.delete(`projects/${p6}`);
    expect((await refused(server.admin.get(orgAcceptedPlan(`organizations/${o6}`, `projects/${p6}`)))).status).toBe(
      'NOT_FOUND',
    );
    expect((await refused(api.limit(`projects/${p6}`, 'r1'))).status).toBe('NOT_FOUND');
    expect((await server.admin.list(`projects/${p6}`, 'planAssignments'))['planAssignments']).toEqual([]);
    expect((await api.pool(`organizations/${o6}`, 'r1')).reserved).toBe(0);

    await server.admin.update({ name: `organizations/${o6}`, regions: [] }, { updateMask: 'regions' });
    expect((await refused(api.pool(`organizations/${o6}`, 'r1'))).status).toBe('NOT_FOUND');
    await server.admin.delete(`organizations/${o6}`);
    expect((await refused(server.admin.get(serviceAcceptedPlan(`organizations/${o6}`)))).status).toBe('NOT_FOUND');
    expect((await api.pool(SERVICE, 'r1')).reserved).toBe(serviceBefore - 100_000);
  });

  it('row 7: Plan.generation increments when resource_limits changes, and assignments apply it', async (context) => {
    const o7 = perAttempt(context, 'o7');
    const p7 = perAttempt(context, 'p7');
    await api.organization(o7);
    await api.project(p7, ['r1'], { parentOrganization: `organizations/${o7}` });
    const plan = await api.plan(`organizations/${o7}`, 'gen', 'PROJECT', 10);
    expect(plan['generation']).toBe(1);
    await setProjectPlan(`organizations/${o7}`, `projects/${p7}`, `organizations/${o7}/plans/gen`);
    expect((await api.assignment(`projects/${p7}`))['appliedPlanSpecGeneration']).toBe(1);

    const renamed = await server.admin.update<Record<string, unknown>>(
      { name: `organizations/${o7}/plans/gen`, displayName: 'Gen' },
      { updateMask: 'displayName' },
    );
    expect(renamed['generation']).toBe(1);
    const changed = await api.setPlanValue(`organizations/${o7}/plans/gen`, 20);
    expect(changed['generation']).toBe(2);
    expect(await api.assignment(`projects/${p7}`)).toMatchObject({
      appliedPlanSpecGeneration: 2,
      allowances: [{ resource: DEVICES, value: 20, region: 'r1' }],
    });
    expect((await api.limit(`projects/${p7}`, 'r1')).configuredLimit).toBe(20);
  });

  it('row 8: a created request that lowers limits is approved at once; one that raises them waits', async (context) => {
    const o8 = perAttempt(context, 'o8');
    const p8 = perAttempt(context, 'p8');
    await api.organization(o8);
    await api.project(p8, ['r1'], { parentOrganization: `organizations/${o8}` });
    await api.plan(`organizations/${o8}`, 'small', 'PROJECT', 10);
    await api.plan(`organizations/${o8}`, 'big', 'PROJECT', 5000);

    const lower = await api.request(`projects/${p8}`, 'lower', { assign: { plan: `organizations/${o8}/plans/small` } });
    expect(lower).toMatchObject({
      approver: `organizations/${o8}`,
      service: SERVICE,
      status: { conclusion: 'APPROVED' },
    });
    expect((await api.limit(`projects/${p8}`, 'r1')).configuredLimit).toBe(10);

    const raise = await api.request(`projects/${p8}`, 'raise', { assign: { plan: `organizations/${o8}/plans/big` } });
    expect(raise.status.conclusion).toBe('PENDING');
    expect(raise.status.reason).toContain('raises');
    expect((await api.limit(`projects/${p8}`, 'r1')).configuredLimit).toBe(10);
  });

  it('row 9: AcceptPlanAssignment by the approver accepts the request and applies it', async (context) => {
    const o9 = perAttempt(context, 'o9');
    const p9 = perAttempt(context, 'p9');
    await api.organization(o9);
    await api.project(p9, ['r1'], { parentOrganization: `organizations/${o9}` });
    await api.plan(`organizations/${o9}`, 'big', 'PROJECT', 5000);
    const pending = await api.request(`projects/${p9}`, 'raise', { assign: { plan: `organizations/${o9}/plans/big` } });
    expect(pending.status.conclusion).toBe('PENDING');

    const projectKey = await createKey(server, `projects/${p9}`);
    const denied = await refused(limitsApi(server.clientWith(projectKey)).accept(pending.name));
    expect(denied.status).toBe('PERMISSION_DENIED');

    const orgKey = await createKey(server, `organizations/${o9}`);
    const answer = await limitsApi(server.clientWith(orgKey)).accept(pending.name, { approver: `organizations/${o9}` });
    expect(answer.acceptedPlan).toMatchObject({
      name: orgAcceptedPlan(`organizations/${o9}`, `projects/${p9}`),
      defaultRegionalPlan: `organizations/${o9}/plans/big`,
    });
    expect((await server.admin.get<RequestJson>(pending.name)).status.conclusion).toBe('APPROVED');
    expect((await api.limit(`projects/${p9}`, 'r1')).configuredLimit).toBe(5000);
    expect((await api.assignment(`projects/${p9}`))['defaultRegionalPlan']).toBe(`organizations/${o9}/plans/big`);
    expect((await refused(api.accept(pending.name))).status).toBe('FAILED_PRECONDITION');
  });

  it('row 10: DeclinePlanAssignment by the approver rejects the request with its reason; nothing changes', async (context) => {
    const o10 = perAttempt(context, 'o10');
    const p10 = perAttempt(context, 'p10');
    await api.organization(o10);
    await api.project(p10, ['r1'], { parentOrganization: `organizations/${o10}` });
    await api.plan(`organizations/${o10}`, 'big', 'PROJECT', 5000);
    const pending = await api.request(`projects/${p10}`, 'raise', {
      assign: { plan: `organizations/${o10}/plans/big` },
    });

    const wrong = await refused(api.decline(pending.name, { approver: SERVICE }));
    expect(wrong.status).toBe('FAILED_PRECONDITION');
    expect(await api.decline(pending.name, { approver: `organizations/${o10}`, reason: 'not this quarter' })).toEqual(
      {},
    );
    expect((await server.admin.get<RequestJson>(pending.name)).status).toEqual({
      conclusion: 'REJECTED',
      reason: 'not this quarter',
    });
    expect((await api.limit(`projects/${p10}`, 'r1')).configuredLimit).toBe(1000);
    expect((await refused(api.accept(pending.name))).status).toBe('FAILED_PRECONDITION');
  });
});

/** An API key holding every permission on one scope. */
async function createKey(server: TestServer, scope: string): Promise<string> {
  const created = await server.admin.request<{ secret: string }>('POST', '/v1/apiKeys', {
    body: { displayName: `key for ${scope}`, grants: [{ permission: '*', scope }] },
  });
  return created.secret;
}
