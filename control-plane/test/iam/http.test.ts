import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ApiKeyStore } from '../../src/iam/api-key-store.js';
import { authenticateRequest, principalOf } from '../../src/iam/authenticate-request.js';
import { Authorizer } from '../../src/iam/authorizer.js';
import { iamRoutes } from '../../src/iam/routes.js';
import { ResourceEngine } from '../../src/resources/resource-engine.js';
import { apiErrorHandler, unknownRouteHandler } from '../../src/server/http-errors.js';
import { createLogger } from '../../src/server/logger.js';
import { describeStorages } from '../helpers/storages.js';

const ADMIN = 'admin-secret-for-the-tests-0123456789';
const GET_DEVICE = 'services/devices.outpost/permissions/devices.get';

describeStorages('IAM over HTTP', (fresh) => {
  let store: ApiKeyStore;
  const logs: Record<string, unknown>[] = [];
  let server: Server;
  let base = '';

  beforeAll(async () => {
    store = new ApiKeyStore(new ResourceEngine(fresh()).stores.apiKeys);
    store.ensureBootstrapAdminKey(ADMIN);
    const authorizer = new Authorizer({
      ancestorsOf: (name) => (name.startsWith('projects/p/') ? ['organizations/o'] : []),
    });
    const app = express();
    app.use(express.json());
    app.use(iamRoutes(store, authorizer));
    app.get('/open', (_req, res) => res.json({ open: true }));
    app.use('/v1/projects', authenticateRequest(store));
    app.get('/v1/*name', (req, res) => {
      const name = (req.params as { name: string[] }).name.join('/');
      authorizer.authorize(principalOf(res), GET_DEVICE, name);
      res.json({ name });
    });
    app.post('/echo', (req, res) => res.json(req.body as unknown));
    app.get('/boom', () => {
      throw new Error('database on fire');
    });
    app.use(unknownRouteHandler());
    app.use(
      apiErrorHandler(
        createLogger('info', { write: (l: string) => logs.push(JSON.parse(l) as Record<string, unknown>) }),
      ),
    );
    server = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  async function call(method: string, path: string, key?: string, body?: unknown, rawBody?: string) {
    const headers: Record<string, string> = {};
    if (key !== undefined) headers['authorization'] = key.includes(' ') ? key : `Bearer ${key}`;
    if (body !== undefined || rawBody !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${base}${path}`, {
      method,
      headers,
      body: rawBody ?? (body === undefined ? undefined : JSON.stringify(body)),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
  }

  it('answers 401 UNAUTHENTICATED without a key, with a malformed header and with an unknown key', async () => {
    const missing = await call('GET', '/v1/apiKeys');
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    expect(missing.body).toEqual({
      error: {
        code: 401,
        status: 'UNAUTHENTICATED',
        message: 'missing API key: send the header "Authorization: Bearer <API key>"',
      },
    });
    const malformed = await call('GET', '/v1/apiKeys', `Basic ${Buffer.from('a:b').toString('base64')}`);
    expect(malformed.body).toEqual({
      error: {
        code: 401,
        status: 'UNAUTHENTICATED',
        message: 'malformed Authorization header: expected "Bearer <API key>"',
      },
    });
    const unknown = await call('GET', '/v1/projects/p', 'opk_nobody_xyz');
    expect(unknown.body).toEqual({
      error: { code: 401, status: 'UNAUTHENTICATED', message: 'invalid or revoked API key' },
    });
  });

  it('leaves routes outside the IAM paths alone', async () => {
    expect(await call('GET', '/open')).toMatchObject({ status: 200, body: { open: true } });
  });

  it('creates, lists, gets and revokes keys', async () => {
    const grants = [{ permission: GET_DEVICE, scope: 'projects/p' }];
    const created = await call('POST', '/v1/apiKeys', ADMIN, { displayName: 'reader', grants });
    expect(created.status).toBe(200);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const apiKey = created.body['apiKey'] as { name: string; displayName: string; grants: unknown; createTime: string };
    expect(apiKey).toMatchObject({ displayName: 'reader', grants });
    expect(apiKey.name).toMatch(/^apiKeys\/[a-z0-9]+$/);
    const secret = String(created.body['secret']);

    const listed = await call('GET', '/v1/apiKeys', ADMIN);
    expect((listed.body['apiKeys'] as { name: string }[]).map((k) => k.name)).toEqual(['apiKeys/admin', apiKey.name]);
    expect(JSON.stringify(listed.body)).not.toContain(secret);
    expect((await call('GET', `/v1/${apiKey.name}`, ADMIN)).body).toEqual(apiKey);

    expect(await call('GET', '/v1/projects/p/regions/r/devices/d', secret)).toMatchObject({ status: 200 });
    expect(await call('DELETE', `/v1/${apiKey.name}`, ADMIN)).toEqual(
      expect.objectContaining({ status: 200, body: {} }),
    );
    expect((await call('GET', '/v1/projects/p/regions/r/devices/d', secret)).status).toBe(401);
    expect(await call('GET', `/v1/${apiKey.name}`, ADMIN)).toMatchObject({
      status: 404,
      body: { error: { code: 404, status: 'NOT_FOUND', message: `${apiKey.name} not found` } },
    });
  });

  it('answers 403 PERMISSION_DENIED naming the missing permission and honours scopes and ancestors', async () => {
    const make = async (scope: string) => {
      const res = await call('POST', '/v1/apiKeys', ADMIN, {
        displayName: scope,
        grants: [{ permission: GET_DEVICE, scope }],
      });
      return String(res.body['secret']);
    };
    const project = await make('projects/p');
    const org = await make('organizations/o');
    const other = await make('projects/q');

    expect((await call('GET', '/v1/projects/p/regions/r/devices/d', org)).status).toBe(200);
    expect((await call('GET', '/v1/projects/p/regions/r/devices/d', project)).status).toBe(200);
    const denied = await call('GET', '/v1/projects/p/regions/r/devices/d', other);
    expect(denied).toEqual({
      status: 403,
      headers: denied.headers,
      body: {
        error: {
          code: 403,
          status: 'PERMISSION_DENIED',
          message: `missing permission ${GET_DEVICE} on projects/p/regions/r/devices/d`,
        },
      },
    });
    expect((await call('GET', '/v1/apiKeys', project)).body).toEqual({
      error: {
        code: 403,
        status: 'PERMISSION_DENIED',
        message: 'missing permission services/iam.outpost/permissions/apiKeys.list on *',
      },
    });
  });

  it('does not let a key grant more than it holds', async () => {
    const keyAdmin = String(
      (
        await call('POST', '/v1/apiKeys', ADMIN, {
          displayName: 'key admin',
          grants: [
            { permission: 'services/iam.outpost/permissions/*', scope: '*' },
            { permission: 'services/devices.outpost/permissions/*', scope: 'projects/p' },
          ],
        })
      ).body['secret'],
    );
    const allowed = await call('POST', '/v1/apiKeys', keyAdmin, {
      displayName: 'narrower',
      grants: [{ permission: GET_DEVICE, scope: 'projects/p/regions/r' }],
    });
    expect(allowed.status).toBe(200);
    const escalation = await call('POST', '/v1/apiKeys', keyAdmin, {
      displayName: 'wider',
      grants: [{ permission: '*', scope: '*' }],
    });
    expect(escalation.body).toEqual({
      error: { code: 403, status: 'PERMISSION_DENIED', message: 'cannot grant *@*: the calling key does not hold it' },
    });
  });

  it('refuses invalid bodies with INVALID_ARGUMENT', async () => {
    const noGrants = await call('POST', '/v1/apiKeys', ADMIN, { displayName: 'x', grants: [] });
    expect(noGrants.body).toEqual({
      error: {
        code: 400,
        status: 'INVALID_ARGUMENT',
        message: 'invalid request body: grants: needs at least one grant',
      },
    });
    const badPermission = await call('POST', '/v1/apiKeys', ADMIN, {
      displayName: 'x',
      grants: [{ permission: 'everything', scope: '*' }],
    });
    expect(badPermission.status).toBe(400);
    expect(String((badPermission.body['error'] as { message: string }).message)).toContain(
      'grants.0.permission: must be "*"',
    );
    const noBody = await call('POST', '/v1/apiKeys', ADMIN);
    expect(noBody.status).toBe(400);
  });

  it('turns malformed JSON into INVALID_ARGUMENT and other failures into a logged INTERNAL', async () => {
    const malformed = await call('POST', '/echo', undefined, undefined, '{"a":');
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });
    expect(String((malformed.body['error'] as { message: string }).message)).toMatch(/^malformed JSON body: /);

    const boom = await call('GET', '/boom');
    expect(boom.body).toEqual({ error: { code: 500, status: 'INTERNAL', message: 'internal error' } });
    expect(logs.some((l) => l['msg'] === 'request failed' && JSON.stringify(l).includes('database on fire'))).toBe(
      true,
    );

    expect(await call('GET', '/nowhere')).toMatchObject({
      status: 404,
      body: { error: { code: 404, status: 'NOT_FOUND', message: 'no route for GET /nowhere' } },
    });
  });
});
