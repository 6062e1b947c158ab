import { OutpostClient } from '@outpost/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { perAttempt } from '../helpers/per-attempt.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { limitsApi, refused, type LimitsApi } from './limits-fixture.js';

/** The devices service as the first client of the limits service (issue 8, part 4). */
describe('devices consume their project limit', () => {
  let server: TestServer;
  let api: LimitsApi;

  beforeAll(async () => {
    server = await startTestServer();
    api = limitsApi(server.admin);
    await api.organization('fleet');
    await api.plan('organizations/fleet', 'hundred', 'PROJECT', 100);
    await api.plan('organizations/fleet', 'two', 'PROJECT', 2);
  });
  afterAll(async () => {
    await server.dispose();
  });

  const withPlan = async (project: string, regions: string[], plan: string) => {
    await api.project(project, regions, { parentOrganization: 'organizations/fleet' });
    const request = await api.request(`projects/${project}`, 'sized', {
      assign: { plan: `organizations/fleet/plans/${plan}` },
    });
    expect(request.status.conclusion).toBe('APPROVED');
  };

  it('raises usage on create, refuses beyond activeLimit with RESOURCE_EXHAUSTED and gives back on delete', async (context) => {
    const small = perAttempt(context, 'small');
    await withPlan(small, ['r1', 'r2'], 'two');
    await api.device(`projects/${small}`, 'r1', 'd1');
    await api.device(`projects/${small}`, 'r1', 'd2');
    expect((await api.limit(`projects/${small}`, 'r1')).usage).toBe(2);
    const err = await refused(api.device(`projects/${small}`, 'r1', 'd3'));
    expect(err.status).toBe('RESOURCE_EXHAUSTED');
    expect((await refused(server.admin.get(`projects/${small}/regions/r1/devices/d3`))).status).toBe('NOT_FOUND');
    await api.device(`projects/${small}`, 'r2', 'd3'); // plan values are per region
    expect((await api.limit(`projects/${small}`, 'r2')).usage).toBe(1);

    await server.admin.delete(`projects/${small}/regions/r1/devices/d1`);
    expect((await api.limit(`projects/${small}`, 'r1')).usage).toBe(1);
    await api.device(`projects/${small}`, 'r1', 'd4');
    expect((await api.limit(`projects/${small}`, 'r1')).usage).toBe(2);
  });

  it('refuses a device in a region its project does not list, and keeps a project with devices', async (context) => {
    const regional = perAttempt(context, 'regional');
    await withPlan(regional, ['r1'], 'two');
    const err = await refused(api.device(`projects/${regional}`, 'r5', 'd1'));
    expect(err.status).toBe('FAILED_PRECONDITION');
    expect(err.message).toContain('r5');
    await api.device(`projects/${regional}`, 'r1', 'd1');
    expect((await refused(server.admin.delete(`projects/${regional}`))).status).toBe('FAILED_PRECONDITION');
    await server.admin.delete(`projects/${regional}/regions/r1/devices/d1`);
    await server.admin.delete(`projects/${regional}`);
  });

  it('does not meter devices of projects that do not exist, and counts them when the project comes', async (context) => {
    const later = perAttempt(context, 'later');
    await api.device(`projects/${later}`, 'r1', 'd1');
    await api.device(`projects/${later}`, 'r1', 'd2');
    await api.project(later, ['r1'], { parentOrganization: 'organizations/fleet' });
    expect(await api.limit(`projects/${later}`, 'r1')).toMatchObject({ configuredLimit: 1000, usage: 2 });
  });

  it('meters devices that register themselves with a provisioning token', async (context) => {
    const tokens = perAttempt(context, 'tokens');
    await withPlan(tokens, ['r1'], 'two');
    const { token } = await server.admin.request<{ token: string }>(
      'POST',
      `/v1/projects/${tokens}/regions/r1/devices:createProvisioningToken`,
      {
        body: {},
      },
    );
    const device = new OutpostClient({ server: server.url, apiKey: token });
    const register = (deviceId: string) =>
      device.request('POST', `/v1/projects/${tokens}/regions/r1/devices:register`, { body: { deviceId } });
    await register('e1');
    await register('e2');
    expect((await refused(register('e3'))).status).toBe('RESOURCE_EXHAUSTED');
    expect((await api.limit(`projects/${tokens}`, 'r1')).usage).toBe(2);
  });

  it('200 concurrent creates against a limit of 100: exactly 100 succeed and usage is 100', async (context) => {
    const rush = perAttempt(context, 'rush');
    await withPlan(rush, ['r1'], 'hundred');
    const results = await Promise.allSettled(
      Array.from({ length: 200 }, (_, i) => api.device(`projects/${rush}`, 'r1', `dev-${i}`)),
    );
    const succeeded = results.filter((r) => r.status === 'fulfilled').length;
    const exhausted = results.filter(
      (r) => r.status === 'rejected' && (r.reason as { status?: string }).status === 'RESOURCE_EXHAUSTED',
    ).length;
    expect({ succeeded, exhausted }).toEqual({ succeeded: 100, exhausted: 100 });
    expect((await api.limit(`projects/${rush}`, 'r1')).usage).toBe(100);
    const page = await server.admin.list(`projects/${rush}/regions/r1`, 'devices', {
      pageSize: 1,
      includePagingInfo: true,
    });
    expect(page.totalResultsCount).toBe(100);

    await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        server.admin.delete(`projects/${rush}/regions/r1/devices/dev-${i}`, { allowMissing: true }),
      ),
    );
    expect((await api.limit(`projects/${rush}`, 'r1')).usage).toBe(0);
  });
});
