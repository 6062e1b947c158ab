import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgStorage } from '../../src/resources/storage/postgres/pg-storage.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { limitsApi, type LimitsApi } from './limits-fixture.js';

/**
 * On PostgreSQL every statement a request waits for is a round trip that blocks the control plane, so a plan
 * assignment request is counted in them: the reads of its scope (the project, its organization, the services'
 * and their assignments, pools, limits and pending requests) go out together, not one after the other.
 */
describe('plan assignment requests on PostgreSQL: round trips', () => {
  let server: TestServer;
  let api: LimitsApi;
  const ORGANIZATION = 'organizations/rt';
  const plan = (id: string): string => `${ORGANIZATION}/plans/${id}`;
  /** a request by a user (not the system), created in one transaction; its conclusion and the round trips it took */
  const request = (project: string, id: string, planId: string): { conclusion: string; roundTrips: number } => {
    const storage = server.engine.storage as PgStorage;
    const before = storage.roundTrips;
    const created = server.engine.resource('planAssignmentRequests').create(
      {
        parent: project,
        resource: { name: `${project}/planAssignmentRequests/${id}`, request: { assign: { plan: plan(planId) } } },
      },
      { principal: 'a user' },
    );
    const status = created['status'] as { conclusion: string };
    return { conclusion: status.conclusion, roundTrips: storage.roundTrips - before };
  };

  beforeAll(async () => {
    server = await startTestServer();
    api = limitsApi(server.admin);
    // another organization reserves from the service's pools too, so that they are drawn from outside the scope
    await api.organization('rt-other');
    await api.project('rt-other-1', ['r1', 'r2'], { parentOrganization: 'organizations/rt-other' });
    await api.organization('rt');
    await api.plan(ORGANIZATION, 'lower', 'PROJECT', 5);
    await api.plan(ORGANIZATION, 'higher', 'PROJECT', 5_000);
    for (const id of ['rt-1', 'rt-2']) await api.project(id, ['r1', 'r2'], { parentOrganization: ORGANIZATION });
  });
  afterAll(async () => {
    await server.dispose();
  });

  it('reads the scope of a request in one round trip', async (context) => {
    if (!(server.engine.storage instanceof PgStorage)) return context.skip();
    // the first requests under the organization read its subtree's regions and the plans (kept until written)
    expect(request('projects/rt-1', 'warm-lower', 'lower').conclusion).toBe('APPROVED');
    expect(request('projects/rt-1', 'warm-higher', 'higher').conclusion).toBe('PENDING');

    // the name check (with the lock of the log head), the scope, the pending requests judged again, the commit
    expect(request('projects/rt-2', 'lower', 'lower')).toEqual({ conclusion: 'APPROVED', roundTrips: 4 });
    // the name check, the scope, the commit
    expect(request('projects/rt-2', 'higher', 'higher')).toEqual({ conclusion: 'PENDING', roundTrips: 3 });
    expect((await api.assignment('projects/rt-2'))['defaultRegionalPlan']).toBe(plan('lower'));
  });

  it('concludes a request with the row it read, not reading it again', async (context) => {
    if (!(server.engine.storage instanceof PgStorage)) return context.skip();
    const storage = server.engine.storage;
    expect(request('projects/rt-1', 'accepted', 'higher').conclusion).toBe('PENDING');
    const before = storage.roundTrips;
    await api.accept('projects/rt-1/planAssignmentRequests/accepted');
    // 7 when the request was read again to be concluded
    expect(storage.roundTrips - before).toBe(6);
    expect((await api.assignment('projects/rt-1'))['defaultRegionalPlan']).toBe(plan('higher'));
  });
});
