import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { perAttempt } from '../helpers/per-attempt.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { DEVICES, limitsApi, refused, SERVICE, type LimitsApi, type RequestJson } from './limits-fixture.js';

/** The rules of spec 001 "RequestType members" and the approval flow of PlanAssignmentRequests. */
describe('plan assignment requests', () => {
  let server: TestServer;
  let api: LimitsApi;
  const plan = (id: string): string => `organizations/acme/plans/${id}`;
  const allowances = async (project: string): Promise<Record<string, number>> => {
    const assignment = await api.assignment(project);
    const list = assignment['allowances'] as { region: string; value: number }[];
    return Object.fromEntries(list.map((a) => [a.region, a.value]));
  };
  /** creates a request, accepting it when it waits; answers the conclusion it had when created */
  const settled = async (project: string, id: string, request: Record<string, unknown>): Promise<string> => {
    const created = await api.request(project, id, request);
    if (created.status.conclusion === 'PENDING') await api.accept(created.name);
    return created.status.conclusion;
  };

  beforeAll(async () => {
    server = await startTestServer();
    api = limitsApi(server.admin);
    await api.organization('acme');
    for (const [id, value] of [
      ['p5', 5],
      ['p10', 10],
      ['p20', 20],
    ] as const) {
      await api.plan('organizations/acme', id, 'PROJECT', value);
    }
  });
  afterAll(async () => {
    await server.dispose();
  });

  it('assign, extend and unassign follow the RequestType rules, auto-approving what lowers limits', async (context) => {
    const paId = perAttempt(context, 'pa');
    const pb = perAttempt(context, 'pb');
    await api.project(paId, ['r1', 'r2'], { parentOrganization: 'organizations/acme' });
    const pa = `projects/${paId}`;
    const assignment = String((await api.assignment(pa))['name']);

    // assign with a region: an override for that region only
    expect(await settled(pa, 'ra', { assign: { plan: plan('p5'), region: 'r2' } })).toBe('APPROVED');
    expect(await allowances(pa)).toEqual({ r1: 1000, r2: 5 });

    // assign without a region: the default plan; the r2 override stays; extensions without region apply everywhere
    expect(
      await settled(pa, 'rb', { assign: { plan: plan('p10'), extensions: [{ resource: DEVICES, value: 2 }] } }),
    ).toBe('PENDING');
    expect(await allowances(pa)).toEqual({ r1: 12, r2: 7 });
    expect((await api.assignment(pa))['regionalPlanOverrides']).toEqual([
      { plan: plan('p5'), region: 'r2', planGeneration: 1 },
    ]);

    // assign with a region replaces that region's extensions; the given ones apply to it only
    expect(
      await settled(pa, 'rc', {
        assign: { plan: plan('p10'), region: 'r2', extensions: [{ resource: DEVICES, value: 1 }] },
      }),
    ).toBe('PENDING');
    expect(await allowances(pa)).toEqual({ r1: 12, r2: 13 });

    // extend merges additions; a negative one lowers the limit and needs no approver
    expect(
      await settled(pa, 'rd', { extend: { assignment, additions: [{ resource: DEVICES, value: -4, region: 'r1' }] } }),
    ).toBe('APPROVED');
    expect(await allowances(pa)).toEqual({ r1: 8, r2: 13 });
    expect((await api.assignment(pa))['extensions']).toEqual([
      { resource: DEVICES, value: 2 },
      { resource: DEVICES, value: 1, region: 'r2' },
      { resource: DEVICES, value: -4, region: 'r1' },
    ]);

    // a region's assign discards its extensions (13 → 5 + 2)
    expect(await settled(pa, 're', { assign: { plan: plan('p5'), region: 'r2' } })).toBe('APPROVED');
    expect(await allowances(pa)).toEqual({ r1: 8, r2: 7 });

    // unassign of a region's override that would raise its limit is not self-approved
    const raise = await api.request(pa, 'rf', { unassign: { assignment, region: 'r2' } });
    expect(raise.status).toMatchObject({ conclusion: 'PENDING' });
    expect(raise.status.reason).toContain('raises');
    await api.decline(raise.name, { reason: 'keep r2 small' });
    expect(await allowances(pa)).toEqual({ r1: 8, r2: 7 });
    expect((await refused(api.request(pa, 'rg', { unassign: { assignment, region: 'r9' } }))).status).toBe(
      'FAILED_PRECONDITION',
    );

    // unassigning everything waits while the limits are in use; accepted, the used limit stays with configured 0
    await api.device(pa, 'r1', 'd1');
    const inUse = await api.request(pa, 'rh', { unassign: { assignment } });
    expect(inUse.status.conclusion).toBe('PENDING');
    expect(inUse.status.reason).toContain('in use');
    await api.accept(inUse.name);
    expect((await server.admin.list(pa, 'planAssignments'))['planAssignments']).toEqual([]);
    expect(await api.limit(pa, 'r1')).toMatchObject({ configuredLimit: 0, activeLimit: 8, usage: 1 });
    expect((await refused(api.limit(pa, 'r2'))).status).toBe('NOT_FOUND');
    expect((await refused(api.device(pa, 'r1', 'd2'))).status).toBe('RESOURCE_EXHAUSTED');

    // without usage, unassign is approved at once and the limits go
    await api.project(pb, ['r1'], { parentOrganization: 'organizations/acme' });
    const other = String((await api.assignment(`projects/${pb}`))['name']);
    expect((await api.request(`projects/${pb}`, 'bye', { unassign: { assignment: other } })).status.conclusion).toBe(
      'APPROVED',
    );
    expect((await refused(api.limit(`projects/${pb}`, 'r1'))).status).toBe('NOT_FOUND');

    // and a new assign brings the assignment back (approval needed: it raises)
    expect(await settled(`projects/${pb}`, 'back', { assign: { plan: plan('p20') } })).toBe('PENDING');
    expect((await api.limit(`projects/${pb}`, 'r1')).configuredLimit).toBe(20);
  });

  it('refuses malformed requests and requests about other entities', async (context) => {
    const pc = perAttempt(context, 'pc');
    await api.project(pc, ['r1'], { parentOrganization: 'organizations/acme' });
    const foreign = String((await api.assignment('projects/pb'))['name']);
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'INVALID_ARGUMENT'],
      [{ assign: { plan: plan('p5') }, extend: { assignment: foreign } }, 'INVALID_ARGUMENT'],
      [{ assign: { plan: 'organizations/acme/plans/none' } }, 'FAILED_PRECONDITION'],
      [{ assign: { plan: `${SERVICE}/plans/organization-small` } }, 'INVALID_ARGUMENT'],
      [{ extend: { assignment: foreign, additions: [{ resource: DEVICES, value: 1 }] } }, 'INVALID_ARGUMENT'],
      [{ unassign: { assignment: `projects/${pc}/planAssignments/none` } }, 'NOT_FOUND'],
      [{ assign: { plan: plan('p5'), extensions: [{ resource: 'devices', value: 1 }] } }, 'INVALID_ARGUMENT'],
    ];
    for (const [request, status] of cases) {
      const err = await refused(api.request(`projects/${pc}`, 'bad', request));
      expect({ request, status: err.status }).toEqual({ request, status });
    }
    expect((await refused(server.admin.get(`projects/${pc}/planAssignmentRequests/bad`))).status).toBe('NOT_FOUND');
    const wrongService = await refused(
      server.admin.create(`projects/${pc}`, 'planAssignmentRequests', {
        request: { assign: { plan: plan('p5') } },
        service: 'services/other.outpost',
      }),
    );
    expect(wrongService.status).toBe('INVALID_ARGUMENT');
  });

  it('a pending request may be rewritten and is judged again; a concluded one keeps its request', async (context) => {
    const pd = perAttempt(context, 'pd');
    await api.project(pd, ['r1'], { parentOrganization: 'organizations/acme' });
    await api.request(`projects/${pd}`, 'lower', { assign: { plan: plan('p10') } });
    const pending = await api.request(`projects/${pd}`, 'rewrite', { assign: { plan: plan('p20') } });
    expect(pending.status.conclusion).toBe('PENDING');
    const rewritten = await server.admin.update<RequestJson>(
      { name: pending.name, request: { assign: { plan: plan('p5') } } },
      { updateMask: 'request' },
    );
    expect(rewritten.status.conclusion).toBe('APPROVED');
    expect((await api.limit(`projects/${pd}`, 'r1')).configuredLimit).toBe(5);
    const labelled = await server.admin.update<RequestJson & { metadata: { labels: Record<string, string> } }>(
      { name: pending.name, metadata: { labels: { ticket: 't-1' } } },
      { updateMask: 'metadata.labels' },
    );
    expect(labelled.metadata.labels).toEqual({ ticket: 't-1' });
    const err = await refused(
      server.admin.update(
        { name: pending.name, request: { assign: { plan: plan('p20') } } },
        { updateMask: 'request' },
      ),
    );
    expect(err.status).toBe('FAILED_PRECONDITION');
    const status = await refused(
      server.admin.update({ name: pending.name, status: { conclusion: 'REJECTED' } }, { updateMask: 'status' }),
    );
    expect(status.status).toBe('INVALID_ARGUMENT');
  });

  it('organizations request from the service; approvers list what waits for them', async (context) => {
    // the attempt's own organization: what waits for it is this attempt's request only
    const orgId = perAttempt(context, 'rising');
    const org = `organizations/${orgId}`;
    await api.organization(orgId, { regions: ['r1'] });
    const orgLarge = perAttempt(context, 'org-large');
    await api.plan(SERVICE, orgLarge, 'ORGANIZATION', 300_000);
    const listForService = async () =>
      server.admin.request<{ planAssignmentRequests: RequestJson[] }>(
        'GET',
        '/v1/planAssignmentRequests:listApprover',
        {
          query: { approver: SERVICE },
        },
      );
    // a retry finds its first attempt's request to the service there before
    const before = (await listForService()).planAssignmentRequests.map((r) => r.name);
    const orgRequest = await api.request(org, 'grow', {
      assign: { plan: `${SERVICE}/plans/${orgLarge}` },
    });
    expect(orgRequest).toMatchObject({ approver: SERVICE, status: { conclusion: 'PENDING' } });
    const pe = perAttempt(context, 'pe');
    await api.project(pe, ['r1'], { parentOrganization: org });
    await api.plan(org, 'p2000', 'PROJECT', 2000);
    const projectRequest = await api.request(`projects/${pe}`, 'grow', { assign: { plan: `${org}/plans/p2000` } });
    expect(projectRequest.approver).toBe(org);

    const forService = await listForService();
    expect(forService.planAssignmentRequests.map((r) => r.name).sort()).toEqual([...before, orgRequest.name].sort());
    expect(Object.keys(forService).sort()).toEqual(['nextPageToken', 'planAssignmentRequests', 'prevPageToken']);

    const forOrg = await server.admin.request<{
      planAssignmentRequests: RequestJson[];
      nextPageToken: string;
      currentOffset: number;
      totalResultsCount: number;
    }>('GET', '/v1/planAssignmentRequests:listApprover', {
      query: {
        approver: org,
        filter: 'status.conclusion = "PENDING"',
        pageSize: 1,
        includePagingInfo: true,
      },
    });
    expect(forOrg.planAssignmentRequests.map((r) => r.name)).toEqual([projectRequest.name]);
    expect(forOrg).toMatchObject({ currentOffset: 0, totalResultsCount: 1 });

    const everything = await server.admin.request<{ planAssignmentRequests: RequestJson[] }>(
      'GET',
      '/v1/planAssignmentRequests:listApprover',
      { query: { view: 'NAME', pageSize: 1000 } },
    );
    expect(everything.planAssignmentRequests.length).toBeGreaterThan(5);
    expect(everything.planAssignmentRequests[0]).toEqual({ name: expect.any(String) });

    const accepted = await api.accept(orgRequest.name);
    expect(accepted.acceptedPlan).toMatchObject({
      name: `${SERVICE}/acceptedPlans/organization-${orgId}.devices.outpost`,
    });
    expect((await api.pool(org, 'r1')).configuredSize).toBe(300_000);
  });
});
