import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPausedWatch } from '../helpers/paused-watch.js';
import { startTestServer, TEST_ADMIN_KEY, type TestServer } from '../helpers/test-server.js';
import { limitsApi } from '../limits/limits-fixture.js';

const CREATE_KEY = 'services/iam.outpost/permissions/apiKeys.create';
const WATCH_DEVICES = 'services/devices.outpost/permissions/devices.watch';

describe('open watch streams are re-authorized', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
    const api = limitsApi(server.admin);
    await api.organization('home', { regions: ['r1'] });
    await api.organization('foreign', { regions: ['r1'] });
    await api.project('mover', ['r1'], { parentOrganization: 'organizations/home' });
  });

  afterAll(() => server.dispose());

  async function mint(by: string, grants: { permission: string; scope: string }[]) {
    const res = await fetch(`${server.url}/v1/apiKeys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${by}`, 'content-type': 'application/json' },
      body: JSON.stringify({ displayName: 'watcher', grants }),
    });
    const body = (await res.json()) as { apiKey: { name: string }; secret: string };
    expect(res.status, JSON.stringify(body)).toBe(200);
    return { name: body.apiKey.name, secret: body.secret };
  }

  const watchDevices = (secret: string) =>
    openPausedWatch(`${server.url}/v1/projects/mover/regions/r1/devices:watch`, secret, {});

  const isError = (message: Record<string, unknown>): boolean => 'error' in message;

  it('ends the stream of a key minted through an organization when the project leaves it', async () => {
    const orgKey = await mint(TEST_ADMIN_KEY, [
      { permission: CREATE_KEY, scope: '*' },
      { permission: '*', scope: 'organizations/home' },
    ]);
    const minted = await mint(orgKey.secret, [{ permission: '*', scope: 'projects/mover' }]);
    const direct = await mint(TEST_ADMIN_KEY, [{ permission: WATCH_DEVICES, scope: 'projects/mover' }]);
    const throughOrg = await watchDevices(minted.secret);
    const unaffected = await watchDevices(direct.secret);
    expect(throughOrg.status).toBe(200);
    expect(unaffected.status).toBe(200);
    expect(await throughOrg.readUntil(() => true)).toHaveLength(1);
    expect(await unaffected.readUntil(() => true)).toHaveLength(1);

    try {
      await server.admin.update(
        { name: 'projects/mover', parentOrganization: 'organizations/foreign' },
        { updateMask: 'parentOrganization' },
      );
      // the move itself re-checks the streams; the periodic re-check (every 60 s) would be far later than this
      const rest = await throughOrg.readUntil(isError, 20_000);
      expect(rest.at(-1)).toEqual({
        error: {
          code: 403,
          status: 'PERMISSION_DENIED',
          message: `missing permission ${WATCH_DEVICES} on projects/mover/regions/r1`,
        },
      });
      expect(await throughOrg.readUntil(() => false, 2_000)).toEqual([]);
      expect(throughOrg.ended()).toBe(true);
      // a key holding the project itself keeps watching
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(unaffected.ended()).toBe(false);
    } finally {
      throughOrg.close();
      unaffected.close();
      await server.admin.update(
        { name: 'projects/mover', parentOrganization: 'organizations/home' },
        { updateMask: 'parentOrganization' },
      );
    }
  });

  it("ends a revoked key's streams at once", async () => {
    const key = await mint(TEST_ADMIN_KEY, [{ permission: WATCH_DEVICES, scope: 'projects/mover' }]);
    const watch = await watchDevices(key.secret);
    try {
      expect(watch.status).toBe(200);
      expect(await watch.readUntil(() => true)).toHaveLength(1);
      const revoked = await fetch(`${server.url}/v1/${key.name}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${TEST_ADMIN_KEY}` },
      });
      expect(revoked.status).toBe(200);
      // at once: the revocation re-checks the streams; the periodic re-check (every 60 s) would be far later
      const rest = await watch.readUntil(isError, 20_000);
      expect(rest.at(-1)).toEqual({
        error: { code: 401, status: 'UNAUTHENTICATED', message: `${key.name} was revoked` },
      });
      expect(await watch.readUntil(() => false, 2_000)).toEqual([]);
      expect(watch.ended()).toBe(true);
    } finally {
      watch.close();
    }
  });
});
