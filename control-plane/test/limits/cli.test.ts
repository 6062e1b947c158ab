import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerLimitsCommands } from '../../src/cli/limits-commands.js';
import { runCli } from '../cli/harness.js';
import { perAttempt } from '../helpers/per-attempt.js';
import { startTestServer, TEST_ADMIN_KEY, type TestServer } from '../helpers/test-server.js';
import { DEVICES, limitName, poolName, SERVICE } from './limits-fixture.js';

/** `outpost limits <verb> <plural>` against a real control plane. */
describe('outpost limits', () => {
  let server: TestServer;
  const outpost = async (...argv: string[]) => {
    const result = await runCli(argv, {
      env: { OUTPOST_SERVER: server.url, OUTPOST_API_KEY: TEST_ADMIN_KEY },
      register: registerLimitsCommands,
    });
    if (result.code !== 0) throw new Error(`outpost ${argv.join(' ')} exited ${result.code}: ${result.stderr}`);
    return result;
  };
  const json = async <T>(...argv: string[]): Promise<T> =>
    JSON.parse((await outpost('-o', 'json', ...argv)).stdout) as T;
  /** the attempt's own organization (region r1) and a project under it */
  const organizationWithProject = async (org: string, project: string) => {
    await outpost('limits', 'create', 'organizations', '--id', org, '--json', '{"regions":["r1"]}');
    await outpost(
      'limits',
      'create',
      'projects',
      '--id',
      project,
      '--json',
      JSON.stringify({ regions: ['r1'], parentOrganization: `organizations/${org}` }),
    );
  };

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.dispose();
  });

  it('creates, lists, gets, updates and deletes through the standard verbs', async (context) => {
    const org = perAttempt(context, 'cli-org');
    const proj = perAttempt(context, 'cli-proj');
    await organizationWithProject(org, proj);
    const table = await outpost('limits', 'list', 'limits', '--parent', `projects/${proj}`);
    expect(table.stdout).toMatch(/NAME\s+CONFIGURED\s+ACTIVE\s+USAGE/);
    const row = table.stdout.split('\n').find((line) => line.startsWith(limitName(`projects/${proj}`, 'r1')));
    expect(row?.split(/\s+/).slice(1)).toEqual(['1000', '1000', '0']);

    const limit = await json<{ configuredLimit: number }>(
      'limits',
      'get',
      'limits',
      limitName(`projects/${proj}`, 'r1'),
    );
    expect(limit.configuredLimit).toBe(1000);
    const batch = await json<{ limitPools: unknown[]; missing: string[] }>(
      'limits',
      'batch-get',
      'limitPools',
      poolName(`organizations/${org}`, 'r1'),
      poolName('organizations/cli-none', 'r1'),
    );
    expect(batch.limitPools).toHaveLength(1);
    expect(batch.missing).toEqual([poolName('organizations/cli-none', 'r1')]);

    await outpost(
      'limits',
      'create',
      'plans',
      '--parent',
      `organizations/${org}`,
      '--id',
      'p9',
      '--json',
      JSON.stringify({ planLevel: 'PROJECT', resourceLimits: [{ resource: DEVICES, value: 9 }] }),
    );
    const updated = await json<{ generation: number }>(
      'limits',
      'update',
      'plans',
      `organizations/${org}/plans/p9`,
      '--update-mask',
      'resourceLimits',
      '--json',
      JSON.stringify({ resourceLimits: [{ resource: DEVICES, value: 8 }] }),
    );
    expect(updated.generation).toBe(2);
    expect((await outpost('limits', 'delete', 'plans', `organizations/${org}/plans/p9`)).stdout).toContain('deleted');
  });

  it('accepts, declines and lists requests as their approver, and migrates', async (context) => {
    // its own approver: the list holds this attempt's two requests only
    const org = perAttempt(context, 'cli-approver');
    const proj = perAttempt(context, 'cli-asker');
    await organizationWithProject(org, proj);
    await outpost(
      'limits',
      'create',
      'plans',
      '--parent',
      `organizations/${org}`,
      '--id',
      'p2000',
      '--json',
      JSON.stringify({ planLevel: 'PROJECT', resourceLimits: [{ resource: DEVICES, value: 2000 }] }),
    );
    const request = (id: string) =>
      json<{ name: string; status: { conclusion: string } }>(
        'limits',
        'create',
        'planAssignmentRequests',
        '--parent',
        `projects/${proj}`,
        '--id',
        id,
        '--json',
        JSON.stringify({ request: { assign: { plan: `organizations/${org}/plans/p2000` } } }),
      );
    const first = await request('first');
    const second = await request('second');
    expect([first.status.conclusion, second.status.conclusion]).toEqual(['PENDING', 'PENDING']);

    const listed = await outpost(
      'limits',
      'list-approver',
      'planAssignmentRequests',
      '--approver',
      `organizations/${org}`,
    );
    expect(listed.stdout).toMatch(/NAME\s+APPROVER\s+CONCLUSION\s+REASON/);
    expect(listed.stdout).toContain(first.name);

    expect((await outpost('limits', 'decline', 'planAssignmentRequests', first.name, '--reason', 'no')).stdout).toBe(
      `declined ${first.name}\n`,
    );
    const accepted = await json<{ acceptedPlan: { defaultRegionalPlan: string } }>(
      'limits',
      'accept',
      'planAssignmentRequests',
      second.name,
    );
    expect(accepted.acceptedPlan.defaultRegionalPlan).toBe(`organizations/${org}/plans/p2000`);
    const statuses = await json<{ planAssignmentRequests: { status: { conclusion: string } }[] }>(
      'limits',
      'list-approver',
      'planAssignmentRequests',
      '--approver',
      `organizations/${org}`,
    );
    expect(statuses.planAssignmentRequests.map((r) => r.status.conclusion)).toEqual(['REJECTED', 'APPROVED']);

    const migratedLimit = await json<{ sources: string[] }>(
      'limits',
      'migrate',
      'limits',
      limitName(`projects/${proj}`, 'r1'),
    );
    expect(migratedLimit.sources).toEqual([poolName(`organizations/${org}`, 'r1')]);
    const migratedPool = await json<{ source: string }>(
      'limits',
      'migrate',
      'limitPools',
      poolName(`organizations/${org}`, 'r1'),
    );
    expect(migratedPool.source).toBe(poolName(SERVICE, 'r1'));
    const assignment = `projects/${proj}/planAssignments/project-${proj}.devices.outpost`;
    const migrated = await json<{ source: string }>('limits', 'migrate', 'planAssignments', assignment);
    expect(migrated.source).toBe(`organizations/${org}/acceptedPlans/project-${proj}.devices.outpost`);
  });

  it('refuses unknown collections for the custom verbs', async () => {
    const result = await runCli(['limits', 'migrate', 'plans', 'x'], {
      env: { OUTPOST_SERVER: server.url },
      register: registerLimitsCommands,
    });
    expect(result.code).toBe(2);
  });
});
