import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_ADMIN_KEY, type TestServer } from '../helpers/test-server.js';
import { limitsApi } from '../limits/limits-fixture.js';

const UPDATE_PROJECT = 'services/resourcemanager.outpost/permissions/projects.update';
const CREATE_KEY = 'services/iam.outpost/permissions/apiKeys.create';
const DELETE_KEY = 'services/iam.outpost/permissions/apiKeys.delete';

interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

interface StoredGrant {
  permission: string;
  scope: string;
  grantedThrough?: string[];
}

describe('privileged IAM operations over HTTP', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
    const api = limitsApi(server.admin);
    await api.organization('home', { regions: ['r1'] });
    await api.organization('foreign', { regions: ['r1'] });
    await api.project('mover', ['r1'], { parentOrganization: 'organizations/home' });
  });

  afterAll(() => server.dispose());

  async function call(method: string, path: string, key: string, body?: unknown): Promise<Answer> {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
  }

  async function mint(by: string, grants: { permission: string; scope: string }[]) {
    const created = await call('POST', '/v1/apiKeys', by, { displayName: 'minted', grants });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const apiKey = created.body['apiKey'] as { name: string; grants: StoredGrant[] };
    return { name: apiKey.name, grants: apiKey.grants, secret: String(created.body['secret']) };
  }

  const moveTo = (key: string, parentOrganization: string) =>
    call('PATCH', '/v1/projects/mover?updateMask=parentOrganization', key, {
      name: 'projects/mover',
      parentOrganization,
    });
  const parentOfMover = async () =>
    (await server.admin.get<{ parentOrganization?: string }>('projects/mover')).parentOrganization;

  it('a project-scoped key cannot move its project under an organization it holds nothing on', async () => {
    const projectKey = await mint(TEST_ADMIN_KEY, [{ permission: '*', scope: 'projects/mover' }]);
    const reservedBefore = (await limitsApi(server.admin).pool('organizations/foreign', 'r1')).reserved;

    const moved = await moveTo(projectKey.secret, 'organizations/foreign');
    expect(moved).toMatchObject({
      status: 403,
      body: {
        error: {
          code: 403,
          status: 'PERMISSION_DENIED',
          message: `missing permission ${UPDATE_PROJECT} on organizations/foreign`,
        },
      },
    });
    expect(await parentOfMover()).toBe('organizations/home');
    expect((await limitsApi(server.admin).pool('organizations/foreign', 'r1')).reserved).toBe(reservedBefore);
    // out from under every organization is the service itself: only `*` covers it
    expect((await moveTo(projectKey.secret, '')).status).toBe(403);
    expect(await parentOfMover()).toBe('organizations/home');

    // nor can it create a project under that organization through PUT allowMissing
    const newcomerKey = await mint(TEST_ADMIN_KEY, [{ permission: '*', scope: 'projects/newcomer' }]);
    const created = await call('PUT', '/v1/projects/newcomer?allowMissing=true', newcomerKey.secret, {
      name: 'projects/newcomer',
      regions: ['r1'],
      parentOrganization: 'organizations/foreign',
    });
    expect(created.body).toEqual({
      error: {
        code: 403,
        status: 'PERMISSION_DENIED',
        message:
          'missing permission services/resourcemanager.outpost/permissions/projects.create on organizations/foreign',
      },
    });
    expect((await call('GET', '/v1/projects/newcomer', TEST_ADMIN_KEY)).status).toBe(404);
  });

  it('a key holding the permission on the destination too may move the project, and back', async () => {
    const mover = await mint(TEST_ADMIN_KEY, [
      { permission: '*', scope: 'projects/mover' },
      { permission: UPDATE_PROJECT, scope: 'organizations/foreign' },
      { permission: UPDATE_PROJECT, scope: 'organizations/home' },
    ]);
    expect((await moveTo(mover.secret, 'organizations/foreign')).status).toBe(200);
    expect(await parentOfMover()).toBe('organizations/foreign');
    expect((await limitsApi(server.admin).pool('organizations/foreign', 'r1')).reserved).toBe(1000);
    expect((await moveTo(mover.secret, 'organizations/home')).status).toBe(200);
    expect((await limitsApi(server.admin).pool('organizations/foreign', 'r1')).reserved).toBe(0);
  });

  it('access minted through an organization ends when the project leaves it', async () => {
    const orgKey = await mint(TEST_ADMIN_KEY, [
      { permission: CREATE_KEY, scope: '*' },
      { permission: '*', scope: 'organizations/home' },
    ]);
    const minted = await mint(orgKey.secret, [{ permission: '*', scope: 'projects/mover' }]);
    expect(minted.grants).toEqual([
      { permission: '*', scope: 'projects/mover', grantedThrough: ['organizations/home'] },
    ]);
    // handed on again, the grant keeps the organization it came through
    const mintedAgain = await mint(TEST_ADMIN_KEY, [{ permission: '*', scope: 'projects/mover' }]);
    expect(mintedAgain.grants).toEqual([{ permission: '*', scope: 'projects/mover' }]);
    expect((await call('GET', '/v1/projects/mover', minted.secret)).status).toBe(200);
    expect((await call('GET', '/v1/projects/mover/regions/r1/devices', minted.secret)).status).toBe(200);

    await server.admin.update(
      { name: 'projects/mover', parentOrganization: 'organizations/foreign' },
      { updateMask: 'parentOrganization' },
    );
    const denied = await call('GET', '/v1/projects/mover', minted.secret);
    expect(denied.body).toEqual({
      error: {
        code: 403,
        status: 'PERMISSION_DENIED',
        message: 'missing permission services/resourcemanager.outpost/permissions/projects.get on projects/mover',
      },
    });
    expect((await call('GET', '/v1/projects/mover/regions/r1/devices', minted.secret)).status).toBe(403);
    expect((await call('GET', '/v1/projects/mover', orgKey.secret)).status).toBe(403);
    expect((await call('GET', '/v1/projects/mover', mintedAgain.secret)).status).toBe(200);

    await server.admin.update(
      { name: 'projects/mover', parentOrganization: 'organizations/home' },
      { updateMask: 'parentOrganization' },
    );
    expect((await call('GET', '/v1/projects/mover', minted.secret)).status).toBe(200);
  });

  it('a key revokes only keys whose grants it holds', async () => {
    const deleter = await mint(TEST_ADMIN_KEY, [
      { permission: DELETE_KEY, scope: '*' },
      { permission: '*', scope: 'projects/mover' },
    ]);
    const revokeAdmin = await call('DELETE', '/v1/apiKeys/admin', deleter.secret);
    expect(revokeAdmin.body).toEqual({
      error: {
        code: 403,
        status: 'PERMISSION_DENIED',
        message: 'cannot revoke apiKeys/admin: the calling key does not hold its grant *@*',
      },
    });
    expect((await call('GET', '/v1/apiKeys', TEST_ADMIN_KEY)).status).toBe(200);

    const narrower = await mint(TEST_ADMIN_KEY, [{ permission: '*', scope: 'projects/mover/regions/r1' }]);
    expect(await call('DELETE', `/v1/${narrower.name}`, deleter.secret)).toMatchObject({ status: 200, body: {} });
    expect((await call('GET', '/v1/projects/mover/regions/r1/devices', narrower.secret)).status).toBe(401);
  });

  it.each([
    'projects/../organizations/foreign',
    'projects/mover/..',
    'projects/./mover',
    '..',
    'projects',
    '/projects/mover',
    'projects/mover/',
    'projects//mover',
    'projects/-',
    'Projects/mover',
    'projects/mo*',
    `projects/${'a'.repeat(1000)}`,
  ])('refuses the malformed scope %j with INVALID_ARGUMENT', async (scope) => {
    const before = (await call('GET', '/v1/apiKeys', TEST_ADMIN_KEY)).body;
    const created = await call('POST', '/v1/apiKeys', TEST_ADMIN_KEY, {
      displayName: 'bad scope',
      grants: [{ permission: '*', scope }],
    });
    expect(created.status).toBe(400);
    expect(created.body).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });
    expect(String((created.body['error'] as { message: string }).message)).toContain('grants.0.scope: must be "*"');
    expect((await call('GET', '/v1/apiKeys', TEST_ADMIN_KEY)).body).toEqual(before);
  });
});
