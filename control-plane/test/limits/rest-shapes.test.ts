import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { perAttempt } from '../helpers/per-attempt.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { DEVICES, limitName, limitsApi, poolName, refused, SERVICE, type LimitsApi } from './limits-fixture.js';

const PERMISSION = (coll: string, verb: string): string => `services/limits.outpost/permissions/${coll}.${verb}`;

/** spec 001 "REST shapes (v1)" and "Authentication" for the six resources. */
describe('limits REST shapes and permissions', () => {
  let server: TestServer;
  let api: LimitsApi;
  const keyWith = async (
    grants: { permission: string; scope: string }[],
  ): Promise<LimitsApi & { client: ReturnType<TestServer['clientWith']> }> => {
    const { secret } = await server.admin.request<{ secret: string }>('POST', '/v1/apiKeys', {
      body: { displayName: 'k', grants },
    });
    const client = server.clientWith(secret);
    return { ...limitsApi(client), client };
  };

  beforeAll(async () => {
    server = await startTestServer();
    api = limitsApi(server.admin);
    await api.organization('shop', { regions: ['r1'] });
    await api.project('web', ['r1'], { parentOrganization: 'organizations/shop' });
    await api.plan('organizations/shop', 'p7', 'PROJECT', 7);
  });
  afterAll(async () => {
    await server.dispose();
  });

  it('answers get, batchGet and list for each of the six collections under each parent shape', async (context) => {
    const assignment = await api.assignment('projects/web');
    const request = await api.request('projects/web', perAttempt(context, 'down'), {
      assign: { plan: 'organizations/shop/plans/p7' },
    });
    const names: Record<string, string[]> = {
      acceptedPlans: [String(assignment['source']), `${SERVICE}/acceptedPlans/devices.outpost`],
      limits: [limitName('projects/web', 'r1')],
      limitPools: [poolName('organizations/shop', 'r1'), poolName(SERVICE, 'r1')],
      plans: ['organizations/shop/plans/p7', `${SERVICE}/plans/service`],
      planAssignments: [String(assignment['name']), `${SERVICE}/planAssignments/devices.outpost`],
      planAssignmentRequests: [request.name],
    };
    for (const [plural, list] of Object.entries(names)) {
      for (const name of list) {
        expect((await server.admin.get<{ name: string }>(name)).name).toBe(name);
        const parent = name.slice(0, name.indexOf(`/${plural}/`));
        const page = await server.admin.list<{ name: string }>(parent, plural);
        expect(page[plural]?.map((r) => r.name)).toContain(name);
      }
      const batch = await server.admin.batchGet<{ name: string }>(plural, list);
      expect(batch[plural]?.map((r) => r.name)).toEqual(list);
    }
    const everyLimit = await server.admin.list<{ name: string }>('projects/-', 'limits', {
      filter: 'usage = 0 AND configuredLimit = 7',
    });
    expect(everyLimit['limits']?.map((l) => l.name)).toEqual([limitName('projects/web', 'r1')]);
    const basic = await server.admin.get<Record<string, unknown>>(limitName('projects/web', 'r1'), { view: 'BASIC' });
    expect(Object.keys(basic).sort()).toEqual(['configuredLimit', 'name', 'region', 'resource', 'usage']);
  });

  it('streams a collection watch of limits', async (context) => {
    const usage = (await api.limit('projects/web', 'r1')).usage;
    const controller = new AbortController();
    const stream = server.admin.watch<Record<string, unknown>>(
      '/v1/projects/web/limits:watch',
      { type: 'STATELESS' },
      controller.signal,
    );
    const snapshot = await stream.next();
    expect(JSON.stringify(snapshot.value?.['limitChanges'])).toContain(limitName('projects/web', 'r1'));
    await api.device('projects/web', 'r1', perAttempt(context, 'watched'));
    let change = '';
    while (!change.includes(`"usage":${usage + 1}`))
      change = JSON.stringify((await stream.next()).value?.['limitChanges'] ?? []);
    expect(change).toContain(limitName('projects/web', 'r1'));
    controller.abort();
    await stream.return(undefined);
  });

  it('keeps Limits and LimitPools to the system: no create, no delete, only metadata writable', async () => {
    const limit = limitName('projects/web', 'r1');
    const { usage } = await api.limit('projects/web', 'r1');
    expect((await refused(server.admin.create('projects/web', 'limits', {}))).status).toBe('UNIMPLEMENTED');
    expect((await refused(server.admin.create('organizations/shop', 'limitPools', {}))).status).toBe('UNIMPLEMENTED');
    expect(
      (await refused(server.admin.update({ name: limit, configuredLimit: 9999 }, { updateMask: 'configuredLimit' })))
        .status,
    ).toBe('INVALID_ARGUMENT');
    const replaced = await server.admin.update<Record<string, unknown>>({
      name: limit,
      configuredLimit: 9999,
      usage: usage + 5,
      metadata: { labels: { team: 'a' } },
    });
    expect(replaced).toMatchObject({ configuredLimit: 7, usage, metadata: { labels: { team: 'a' } } });
    expect((await refused(server.admin.delete(limit))).status).toBe('FAILED_PRECONDITION');
    expect((await refused(server.admin.delete(poolName('organizations/shop', 'r1')))).status).toBe(
      'FAILED_PRECONDITION',
    );
    const pool = await server.admin.update<Record<string, unknown>>(
      { name: poolName('organizations/shop', 'r1'), metadata: { labels: { tier: 'gold' } } },
      { updateMask: 'metadata.labels' },
    );
    expect(pool['configuredSize']).toBe(100_000);
    const assignment = String((await api.assignment('projects/web'))['name']);
    const readOnly = await refused(
      server.admin.update(
        { name: assignment, defaultRegionalPlan: `${SERVICE}/plans/project-small` },
        { updateMask: 'defaultRegionalPlan' },
      ),
    );
    expect(readOnly.status).toBe('FAILED_PRECONDITION');
  });

  it('keeps PlanAssignments from their assignee: a key holding planAssignments.* cannot delete its own', async (context) => {
    const organization = perAttempt(context, 'keep');
    const kept = perAttempt(context, 'kept');
    const project = `projects/${kept}`;
    await api.organization(organization);
    await api.project(kept, ['r1'], { parentOrganization: `organizations/${organization}` });
    const assignment = await api.assignment(project);
    const name = String(assignment['name']);
    const assignee = await keyWith([{ permission: PERMISSION('planAssignments', '*'), scope: project }]);
    expect((await assignee.client.get<{ name: string }>(name)).name).toBe(name);
    for (const client of [assignee.client, server.admin]) {
      const err = await refused(client.delete(name));
      expect(err.status).toBe('FAILED_PRECONDITION');
      expect(err.message).toBe(
        `the plan assignments of ${project} are removed by its assigner: delete the AcceptedPlan ` +
          `${String(assignment['source'])} there, or create an unassign PlanAssignmentRequest under ${project}`,
      );
    }
    expect(await api.assignment(project)).toEqual(assignment);
    expect((await server.admin.get<{ name: string }>(String(assignment['source']))).name).toBe(assignment['source']);
    expect((await api.limit(project, 'r1')).configuredLimit).toBe(1000);
    const requests = await server.admin.list(project, 'planAssignmentRequests');
    expect(requests['planAssignmentRequests'] ?? []).toEqual([]);

    const unassign = await api.request(project, 'drop', { unassign: { assignment: name } });
    expect(unassign.status.conclusion).toBe('APPROVED');
    expect((await server.admin.list(project, 'planAssignments'))['planAssignments'] ?? []).toEqual([]);
  });

  it('needs one permission per operation, named services/limits.outpost/permissions/<coll>.<verb>', async (context) => {
    const limit = limitName('projects/web', 'r1');
    const reader = await keyWith([{ permission: PERMISSION('limits', 'get'), scope: 'projects/web' }]);
    expect((await reader.limit('projects/web', 'r1')).name).toBe(limit);
    expect((await refused(reader.client.list('projects/web', 'limits'))).status).toBe('PERMISSION_DENIED');
    expect((await refused(reader.client.batchGet('limits', [limit]))).status).toBe('PERMISSION_DENIED');
    expect((await refused(reader.client.request('POST', `/v1/${limit}:migrate`, { body: {} }))).status).toBe(
      'PERMISSION_DENIED',
    );

    const migrator = await keyWith([{ permission: PERMISSION('limits', 'migrate'), scope: 'projects/web' }]);
    expect((await migrator.client.request<{ name: string }>('POST', `/v1/${limit}:migrate`, { body: {} })).name).toBe(
      limit,
    );

    const watcher = await keyWith([{ permission: PERMISSION('limits', 'watch'), scope: 'projects/web' }]);
    const controller = new AbortController();
    const stream = watcher.client.watch('/v1/projects/web/limits:watch', {}, controller.signal);
    expect((await stream.next()).done).toBe(false);
    controller.abort();
    await stream.return(undefined);

    // a retry finds its first attempt's p50 accepted: back to p7 (a decrease, approved at once), so 50 needs accepting
    if ((await api.limit('projects/web', 'r1')).configuredLimit !== 7) {
      await api.request('projects/web', perAttempt(context, 'back'), {
        assign: { plan: 'organizations/shop/plans/p7' },
      });
    }
    const plan = await api.plan('organizations/shop', perAttempt(context, 'p50'), 'PROJECT', 50);
    const pending = await api.request('projects/web', perAttempt(context, 'up'), {
      assign: { plan: String(plan['name']) },
    });
    const decliner = await keyWith([
      { permission: PERMISSION('planAssignmentRequests', 'decline'), scope: 'organizations/shop' },
    ]);
    expect((await refused(decliner.accept(pending.name))).status).toBe('PERMISSION_DENIED');
    const accepter = await keyWith([
      { permission: PERMISSION('planAssignmentRequests', 'accept'), scope: 'organizations/shop' },
    ]);
    await accepter.accept(pending.name);

    const approverList = PERMISSION('approverPlanAssignmentRequests', 'list');
    const lister = await keyWith([{ permission: approverList, scope: '*' }]);
    const listed = await lister.client.request<{ planAssignmentRequests: { name: string }[] }>(
      'GET',
      '/v1/planAssignmentRequests:listApprover',
      {
        query: { approver: 'organizations/shop' },
      },
    );
    // every request of projects/web (this one, the first test's, and those of a retry's first attempt) and no other
    const made = await server.admin.list<{ name: string }>('projects/web', 'planAssignmentRequests');
    const names = (page: { name: string }[] | undefined) => (page ?? []).map((r) => r.name).sort();
    expect(names(listed.planAssignmentRequests)).toContain(pending.name);
    expect(names(listed.planAssignmentRequests)).toEqual(names(made['planAssignmentRequests']));
    const notLister = await keyWith([{ permission: PERMISSION('planAssignmentRequests', 'list'), scope: '*' }]);
    expect((await refused(notLister.client.request('GET', '/v1/planAssignmentRequests:listApprover'))).status).toBe(
      'PERMISSION_DENIED',
    );
  });

  it('answers planAssignments:migrate with PUT and a plan_assignment body only', async () => {
    const assignment = String((await api.assignment('projects/web'))['name']);
    expect((await refused(server.admin.request('POST', `/v1/${assignment}:migrate`, { body: {} }))).status).toBe(
      'NOT_FOUND',
    );
    const other = await refused(
      server.admin.request('PUT', `/v1/${assignment}:migrate`, { body: { name: 'projects/web/planAssignments/x' } }),
    );
    expect(other.status).toBe('INVALID_ARGUMENT');
    const migrated = await server.admin.request<{ allowances: unknown[] }>('PUT', `/v1/${assignment}:migrate`, {
      body: { name: assignment },
    });
    expect(migrated.allowances).toEqual([{ resource: DEVICES, value: 50, region: 'r1' }]);
  });
});
