/**
 * Issue 16, provisioning tokens: a token registers at most --max-uses devices, tokens can be listed (never
 * shown) and revoked through the CLI and REST (expiry and purging: provisioning-token-store.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerDeviceCommands } from '../../src/cli/device-commands.js';
import { runCli } from '../cli/harness.js';
import { perAttempt } from '../helpers/per-attempt.js';
import { startTestServer, TEST_ADMIN_KEY } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

const parent = 'projects/tokens/regions/eu';
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.dispose();
});

const outpost = (...argv: string[]) =>
  runCli(argv, {
    env: { OUTPOST_SERVER: server.url, OUTPOST_API_KEY: TEST_ADMIN_KEY },
    register: (program, ctxFactory) => registerDeviceCommands(program, ctxFactory),
  });

const call = (method: string, path: string, body?: unknown, authorization = `Bearer ${TEST_ADMIN_KEY}`) =>
  fetch(`${server.url}/v1/${path}`, {
    method,
    headers: { authorization, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

const register = (token: string, deviceId: string, at = parent) =>
  call('POST', `${at}/devices:register`, { deviceId }, `Bearer ${token}`);

interface ListedToken {
  id: string;
  uses: number;
  maxUses?: number;
  expireTime: string;
}
const listed = async (at = parent): Promise<ListedToken[]> => {
  const res = await call('GET', `${at}/devices:listProvisioningTokens`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { provisioningTokens: ListedToken[] }).provisioningTokens;
};

describe('--max-uses', () => {
  it('registers that many devices and then no more; a registration that fails uses nothing up', async (context) => {
    const firstId = perAttempt(context, 'first-1');
    const secondId = perAttempt(context, 'second-1');
    const thirdId = perAttempt(context, 'third-1');
    const created = await outpost('devices', 'create-provisioning-token', '--parent', parent, '--max-uses', '2');
    expect(created.code, created.stderr).toBe(0);
    const token = created.stdout.trim();
    expect(token).toMatch(/^opt_/);

    expect((await register(token, firstId)).status).toBe(200);
    // refused: a device that exists, a malformed body
    expect((await register(token, firstId)).status).toBe(409);
    expect((await call('POST', `${parent}/devices:register`, { deviceId: 7 }, `Bearer ${token}`)).status).toBe(400);
    expect((await register(token, secondId)).status).toBe(200);

    const third = await register(token, thirdId);
    expect(third.status).toBe(401);
    expect(await third.json()).toEqual({
      error: { code: 401, status: 'UNAUTHENTICATED', message: 'this provisioning token has registered all it may' },
    });
    expect((await call('GET', `${parent}/devices/${thirdId}`)).status).toBe(404);
    expect(await listed()).toContainEqual(expect.objectContaining({ uses: 2, maxUses: 2 }));
  });

  it('refuses a count that is not a positive whole number, changing nothing', async () => {
    const before = await listed();
    for (const maxUses of [0, -1, 1.5, '3', 1_000_001]) {
      const res = await call('POST', `${parent}/devices:createProvisioningToken`, { maxUses });
      expect(res.status, String(maxUses)).toBe(400);
      expect(((await res.json()) as { error: { status: string } }).error.status).toBe('INVALID_ARGUMENT');
    }
    expect(await listed()).toEqual(before);
    const cli = await outpost('devices', 'create-provisioning-token', '--parent', parent, '--max-uses', 'lots');
    expect(cli.code).not.toBe(0);
    expect(cli.stderr).toContain('"lots" is not a positive whole number');
    expect(await listed()).toEqual(before);
  });
});

describe('list and revoke', () => {
  it('lists the tokens of a region without the tokens themselves, and a revoked one registers no more', async (context) => {
    // the attempt's own region: it holds exactly this attempt's two tokens
    const at = `${perAttempt(context, 'projects/tokens')}/regions/us`;
    const made = await outpost('devices', 'create-provisioning-token', '--parent', at, '--ttl', '3600', '-o', 'json');
    expect(made.code, made.stderr).toBe(0);
    const { token, id } = JSON.parse(made.stdout) as { token: string; id: string };
    expect(id).toMatch(/^[0-9a-f]{16}$/);
    const other = (await (await call('POST', `${at}/devices:createProvisioningToken`, {})).json()) as { token: string };

    const table = await outpost('devices', 'list-provisioning-tokens', '--parent', at);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain(id);
    expect(table.stdout).not.toContain(token);
    const json = await outpost('devices', 'list-provisioning-tokens', '--parent', at, '-o', 'json');
    expect(json.stdout).not.toContain('opt_');
    expect((JSON.parse(json.stdout) as { provisioningTokens: ListedToken[] }).provisioningTokens).toHaveLength(2);
    // another region's tokens are not among them
    expect((await listed(at)).map((t) => t.id)).not.toContainEqual((await listed())[0]?.id);

    const revoked = await outpost('devices', 'revoke-provisioning-token', id, '--parent', at);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect((await listed(at)).map((t) => t.id)).not.toContain(id);
    expect((await register(token, 'after-revoke-1', at)).status).toBe(401);
    expect((await register(other.token, 'still-fine-1', at)).status).toBe(200);
  });

  it('answers an unknown id 404 and a malformed one 400, revoking nothing', async () => {
    const at = 'projects/tokens/regions/ap';
    await call('POST', `${at}/devices:createProvisioningToken`, {});
    const before = await listed(at);
    const unknown = await call('POST', `${at}/devices:revokeProvisioningToken`, { id: '0123456789abcdef' });
    expect(unknown.status).toBe(404);
    // an id of this region's token does not revoke it through another region
    const elsewhere = await call('POST', `${parent}/devices:revokeProvisioningToken`, { id: before[0]!.id });
    expect(elsewhere.status).toBe(404);
    for (const body of [{ id: 'zz' }, {}, { id: 12 }, []]) {
      const res = await call('POST', `${at}/devices:revokeProvisioningToken`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect(await listed(at)).toEqual(before);
  });

  it('needs devices.provision: a key without it can neither list nor revoke', async () => {
    const created = (await (
      await call('POST', 'apiKeys', {
        displayName: 'reader',
        grants: [{ permission: 'services/devices.outpost/permissions/devices.get', scope: '*' }],
      })
    ).json()) as { secret: string };
    const asReader = `Bearer ${created.secret}`;
    expect((await call('GET', `${parent}/devices:listProvisioningTokens`, undefined, asReader)).status).toBe(403);
    const revoke = await call('POST', `${parent}/devices:revokeProvisioningToken`, { id: '0'.repeat(16) }, asReader);
    expect(revoke.status).toBe(403);
  });
});
