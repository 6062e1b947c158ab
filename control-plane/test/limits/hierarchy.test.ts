import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { perAttempt } from '../helpers/per-attempt.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { limitName, limitsApi, poolName, refused, SERVICE, type LimitJson, type LimitsApi } from './limits-fixture.js';

/** Services, organizations and projects as resources: the service → organizations → projects chain. */
describe('the limits hierarchy', () => {
  let server: TestServer;
  let api: LimitsApi;

  beforeAll(async () => {
    server = await startTestServer();
    api = limitsApi(server.admin);
  });
  afterAll(async () => {
    await server.dispose();
  });

  it('a fresh control plane has the devices service, its plans and its own assignment', async () => {
    const service = await server.admin.get<Record<string, unknown>>(SERVICE);
    expect(service['displayName']).toBe('Devices');
    const plans = await server.admin.list<{ name: string; planLevel: string; businessTier: string }>(SERVICE, 'plans');
    expect(plans['plans']?.map((p) => [p.name, p.planLevel, p.businessTier])).toEqual([
      [`${SERVICE}/plans/organization-small`, 'ORGANIZATION', 'SMALL'],
      [`${SERVICE}/plans/project-small`, 'PROJECT', 'SMALL'],
      [`${SERVICE}/plans/service`, 'SERVICE', 'UNDEFINED'],
    ]);
    const own = await api.assignment(SERVICE);
    expect(own).toMatchObject({
      name: `${SERVICE}/planAssignments/devices.outpost`,
      source: `${SERVICE}/acceptedPlans/devices.outpost`,
    });
  });

  it('validates names, regions and parents', async () => {
    const cases: [Promise<unknown>, string][] = [
      [api.project('Bad', ['r1']), 'INVALID_ARGUMENT'],
      [api.project('p-bad-region', ['Not A Region']), 'INVALID_ARGUMENT'],
      [api.project('p-twice', ['r1', 'r1']), 'INVALID_ARGUMENT'],
      [api.project('p-orphan', ['r1'], { parentOrganization: 'organizations/missing' }), 'FAILED_PRECONDITION'],
      [api.project('p-wrong-parent', ['r1'], { parentOrganization: 'projects/x1' }), 'INVALID_ARGUMENT'],
      [api.organization('o-orphan', { parentOrganization: 'organizations/missing' }), 'FAILED_PRECONDITION'],
    ];
    for (const [call, status] of cases) expect((await refused(call)).status).toBe(status);
  });

  it('gives a new project the default plan of its business tier, an organization plan above it first', async (context) => {
    const tiers = perAttempt(context, 'tiers');
    const large = perAttempt(context, 'large');
    const topId = perAttempt(context, 'top');
    const house = perAttempt(context, 'house');
    await api.organization(tiers, { regions: ['r1'] });
    await api.plan(SERVICE, perAttempt(context, 'project-large'), 'PROJECT', 5000, { businessTier: 'LARGE' });
    await api.project(large, ['r1'], { parentOrganization: `organizations/${tiers}`, businessTier: 'LARGE' });
    expect((await api.limit(`projects/${large}`, 'r1')).configuredLimit).toBe(5000);

    await api.plan(`organizations/${tiers}`, 'house', 'PROJECT', 42, { businessTier: 'SMALL' });
    await api.project(house, ['r1'], { parentOrganization: `organizations/${tiers}` });
    expect((await api.assignment(`projects/${house}`))['defaultRegionalPlan']).toBe(
      `organizations/${tiers}/plans/house`,
    );

    await api.project(topId, ['r1']);
    const top = await api.limit(`projects/${topId}`, 'r1');
    expect(top).toMatchObject({ configuredLimit: 1000, sources: [poolName(SERVICE, 'r1')] });
    expect((await api.assignment(`projects/${topId}`))['source']).toBe(
      `${SERVICE}/acceptedPlans/project-${topId}.devices.outpost`,
    );
  });

  it('keeps plans to their owners: an organization offers its plans to what lies under it', async (context) => {
    const other = perAttempt(context, 'other');
    const outsider = perAttempt(context, 'outsider');
    await api.organization(other, { regions: ['r1'] });
    await api.project(outsider, ['r1'], { parentOrganization: `organizations/${other}` });
    const err = await refused(
      api.request(`projects/${outsider}`, 'steal', { assign: { plan: 'organizations/tiers/plans/house' } }),
    );
    expect(err.status).toBe('FAILED_PRECONDITION');
    expect((await refused(server.admin.delete('organizations/tiers/plans/house'))).status).toBe('FAILED_PRECONDITION');
  });

  it('moves a project to another organization: accepted plan, sources and reservations follow', async (context) => {
    const from = perAttempt(context, 'from');
    const to = perAttempt(context, 'to');
    const mover = perAttempt(context, 'mover');
    await api.organization(from, { regions: ['r1'] });
    await api.organization(to, { regions: ['r1'] });
    await api.project(mover, ['r1'], { parentOrganization: `organizations/${from}` });
    await api.plan(`organizations/${from}`, 'pending-plan', 'PROJECT', 3000);
    const pending = await api.request(`projects/${mover}`, 'later', {
      assign: { plan: `${SERVICE}/plans/project-large` },
    });
    expect(pending.approver).toBe(`organizations/${from}`);

    await server.admin.update(
      { name: `projects/${mover}`, parentOrganization: `organizations/${to}` },
      { updateMask: 'parentOrganization' },
    );
    const assignment = await api.assignment(`projects/${mover}`);
    expect(assignment['source']).toBe(`organizations/${to}/acceptedPlans/project-${mover}.devices.outpost`);
    expect(
      (await refused(server.admin.get(`organizations/${from}/acceptedPlans/project-${mover}.devices.outpost`))).status,
    ).toBe('NOT_FOUND');
    expect((await api.limit(`projects/${mover}`, 'r1')).sources).toEqual([poolName(`organizations/${to}`, 'r1')]);
    expect((await api.pool(`organizations/${from}`, 'r1')).reserved).toBe(0);
    expect((await api.pool(`organizations/${to}`, 'r1')).reserved).toBe(1000);
    expect((await server.admin.get<{ approver: string }>(pending.name)).approver).toBe(`organizations/${to}`);

    // the migrate methods find nothing left to do, and answer the resource
    const limit = await server.admin.request<LimitJson>('POST', `/v1/${limitName(`projects/${mover}`, 'r1')}:migrate`, {
      body: {},
    });
    expect(limit.sources).toEqual([poolName(`organizations/${to}`, 'r1')]);
    const migrated = await server.admin.request<Record<string, unknown>>(
      'PUT',
      `/v1/${String(assignment['name'])}:migrate`,
      {
        body: { name: assignment['name'] },
      },
    );
    expect(migrated['source']).toBe(assignment['source']);
    const pool = await server.admin.request<{ source: string }>(
      'POST',
      `/v1/${poolName(`organizations/${to}`, 'r1')}:migrate`,
      { body: {} },
    );
    expect(pool.source).toBe(poolName(SERVICE, 'r1'));
  });

  it('refuses a move the new parent cannot back, and an organization under itself', async (context) => {
    const tiny = perAttempt(context, 'tiny');
    const inner = perAttempt(context, 'inner');
    await api.plan(SERVICE, perAttempt(context, 'org-tiny'), 'ORGANIZATION', 10, { businessTier: 'MEDIUM' });
    await api.organization(tiny, { regions: ['r1'], businessTier: 'MEDIUM' });
    const err = await refused(
      server.admin.update(
        { name: 'projects/mover', parentOrganization: `organizations/${tiny}` },
        { updateMask: 'parentOrganization' },
      ),
    );
    expect(err.status).toBe('FAILED_PRECONDITION');
    expect((await api.limit('projects/mover', 'r1')).sources).toEqual([poolName('organizations/to', 'r1')]);

    await api.organization(inner, { parentOrganization: 'organizations/to' });
    const cycle = await refused(
      server.admin.update(
        { name: 'organizations/to', parentOrganization: `organizations/${inner}` },
        { updateMask: 'parentOrganization' },
      ),
    );
    expect(cycle.status).toBe('FAILED_PRECONDITION');
    expect((await refused(server.admin.delete('organizations/to'))).status).toBe('FAILED_PRECONDITION');
  });

  it('moves an organization with its projects under another organization', async (context) => {
    const holding = perAttempt(context, 'holding');
    await api.organization(holding, { regions: ['r1'] });
    const orgBig = perAttempt(context, 'org-big');
    await api.plan(SERVICE, orgBig, 'ORGANIZATION', 500_000);
    await server.admin.update(
      {
        name: `${SERVICE}/acceptedPlans/organization-${holding}.devices.outpost`,
        defaultRegionalPlan: `${SERVICE}/plans/${orgBig}`,
      },
      { updateMask: 'defaultRegionalPlan' },
    );
    await server.admin.update(
      { name: 'organizations/from', parentOrganization: `organizations/${holding}` },
      { updateMask: 'parentOrganization' },
    );
    expect((await api.pool('organizations/from', 'r1')).source).toBe(poolName(`organizations/${holding}`, 'r1'));
    expect((await api.pool(`organizations/${holding}`, 'r1')).reserved).toBe(100_000);
    expect((await api.assignment('organizations/from'))['source']).toBe(
      `organizations/${holding}/acceptedPlans/organization-from.devices.outpost`,
    );
  });

  it('a key scoped to an organization covers the projects under it', async (context) => {
    const scoped = perAttempt(context, 'scoped');
    const inside = perAttempt(context, 'inside');
    const outside = perAttempt(context, 'outside');
    await api.organization(scoped, { regions: ['r1'] });
    await api.project(inside, ['r1'], { parentOrganization: `organizations/${scoped}` });
    await api.project(outside, ['r1']);
    const { secret } = await server.admin.request<{ secret: string }>('POST', '/v1/apiKeys', {
      body: { displayName: 'org admin', grants: [{ permission: '*', scope: `organizations/${scoped}` }] },
    });
    const orgAdmin = limitsApi(server.clientWith(secret));
    expect((await orgAdmin.limit(`projects/${inside}`, 'r1')).configuredLimit).toBe(1000);
    await orgAdmin.device(`projects/${inside}`, 'r1', 'd1');
    expect((await refused(orgAdmin.limit(`projects/${outside}`, 'r1'))).status).toBe('PERMISSION_DENIED');
  });

  it('deletes a service only when nothing uses it', async (context) => {
    const empty = `services/${perAttempt(context, 'empty')}.outpost`;
    expect((await refused(server.admin.delete(SERVICE))).status).toBe('FAILED_PRECONDITION');
    await server.admin.create('', 'services', { name: empty, regions: ['r1'] });
    await server.admin.delete(empty);
  });
});
