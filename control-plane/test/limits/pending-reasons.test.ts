import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { perAttempt } from '../helpers/per-attempt.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { DEVICES, limitsApi, type LimitsApi, type RequestJson } from './limits-fixture.js';

/**
 * The reason of a PENDING request speaks of the values of the moment (allowances, plan values, usage); it stays
 * true when they change after the request was filed.
 */
describe('the reason of a pending request', () => {
  let server: TestServer;
  let api: LimitsApi;
  const reasonOf = async (name: string): Promise<string | undefined> =>
    (await server.admin.get<RequestJson>(name)).status.reason;
  const devicesIn = (region: string): string => `${DEVICES} in region ${region}`;

  beforeAll(async () => {
    server = await startTestServer();
    api = limitsApi(server.admin);
    await api.organization('why');
    await api.plan('organizations/why', 'p7', 'PROJECT', 7);
    await api.plan('organizations/why', 'p1', 'PROJECT', 1);
  });
  afterAll(async () => {
    await server.dispose();
  });

  it('follows the assignment it raises and the plan it asks for', async (context) => {
    // the plans whose values this test changes are its attempt's own
    const planOf = async (id: string, value: number): Promise<string> =>
      String((await api.plan('organizations/why', perAttempt(context, id), 'PROJECT', value))['name']);
    const p1000 = await planOf('p1000', 1000);
    const p1997 = await planOf('p1997', 1997);
    const growId = perAttempt(context, 'grow');
    const grow = `projects/${growId}`;
    await api.project(growId, ['r1'], { parentOrganization: 'organizations/why' });
    const accepted = String((await api.assignment(grow))['source']);
    const setPlan = (plan: string) =>
      server.admin.update({ name: accepted, defaultRegionalPlan: plan }, { updateMask: 'defaultRegionalPlan' });
    await setPlan('organizations/why/plans/p7');
    const raise = await api.request(grow, 'raise', { assign: { plan: p1997 } });
    expect(raise.status).toEqual({
      conclusion: 'PENDING',
      reason: `raises ${devicesIn('r1')} from 7 to 1997; needs the approver`,
    });

    await setPlan(p1000);
    expect(await reasonOf(raise.name)).toBe(`raises ${devicesIn('r1')} from 1000 to 1997; needs the approver`);

    await api.setPlanValue(p1997, 1500);
    expect(await reasonOf(raise.name)).toBe(`raises ${devicesIn('r1')} from 1000 to 1500; needs the approver`);

    await api.setPlanValue(p1000, 1500);
    const unneeded = 'would be approved at once if filed now (raises no limit); needs the approver';
    expect(await reasonOf(raise.name)).toBe(unneeded);

    await server.admin.update({ name: grow, regions: ['r1', 'r2'] }, { updateMask: 'regions' });
    expect(await reasonOf(raise.name)).toBe(unneeded);

    await api.setPlanValue(p1000, 1000);
    expect(await reasonOf(raise.name)).toBe(`raises ${devicesIn('r1')} from 1000 to 1500; needs the approver`);
    await api.accept(raise.name);
    expect((await server.admin.get<RequestJson>(raise.name)).status.conclusion).toBe('APPROVED');
  });

  it('follows the usage it speaks of as devices come and go', async (context) => {
    const busyId = perAttempt(context, 'busy');
    const busy = `projects/${busyId}`;
    await api.project(busyId, ['r1'], { parentOrganization: 'organizations/why' });
    for (const id of ['d1', 'd2', 'd3']) await api.device(busy, 'r1', id);
    const lower = await api.request(busy, 'lower', { assign: { plan: 'organizations/why/plans/p1' } });
    expect(lower.status.reason).toBe(`lowers ${devicesIn('r1')} to 1, below its usage 3; needs the approver`);

    await server.admin.delete(`${busy}/regions/r1/devices/d1`);
    expect(await reasonOf(lower.name)).toBe(`lowers ${devicesIn('r1')} to 1, below its usage 2; needs the approver`);
    await api.device(busy, 'r1', 'd4');
    await api.device(busy, 'r1', 'd5');
    expect(await reasonOf(lower.name)).toBe(`lowers ${devicesIn('r1')} to 1, below its usage 4; needs the approver`);
    for (const id of ['d2', 'd3', 'd4']) await server.admin.delete(`${busy}/regions/r1/devices/${id}`);
    expect(await reasonOf(lower.name)).toBe(
      'would be approved at once if filed now (raises no limit); needs the approver',
    );
  });

  it('says when the request cannot be carried out as it stands', async (context) => {
    const gone = perAttempt(context, 'gone');
    const shortLived = perAttempt(context, 'short-lived');
    await api.project(gone, ['r1'], { parentOrganization: 'organizations/why' });
    await api.plan('organizations/why', shortLived, 'PROJECT', 5000);
    const ask = await api.request(`projects/${gone}`, 'ask', {
      assign: { plan: `organizations/why/plans/${shortLived}` },
    });
    expect(ask.status.conclusion).toBe('PENDING');
    await server.admin.delete(`organizations/why/plans/${shortLived}`);
    expect(await reasonOf(ask.name)).toBe(
      `cannot be carried out as it stands (plan "organizations/why/plans/${shortLived}" does not exist); ` +
        'accepting it fails until that changes',
    );
    expect((await server.admin.get<RequestJson>(ask.name)).status.conclusion).toBe('PENDING');
  });
});
