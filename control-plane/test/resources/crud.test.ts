import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '@outpost/shared';
import { perAttempt } from '../helpers/per-attempt.js';
import { startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { widgetDefinition } from '../helpers/widgets.js';
import type { Widget } from '../helpers/widgets.js';

const parent = 'projects/p1/regions/eu';
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ resources: [{ def: widgetDefinition }] });
});
afterAll(async () => server.dispose());

async function refused(promise: Promise<unknown>): Promise<ApiError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

describe('create', () => {
  it('generates an id when the body has no name and stamps metadata', async () => {
    const w = await server.admin.create<Widget>(parent, 'widgets', { spec: { color: 'red' } });
    expect(w.name).toMatch(/^projects\/p1\/regions\/eu\/widgets\/[a-z][a-z0-9-]*$/);
    expect(w.metadata?.generation).toBe(1);
    expect(w.metadata?.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(w.metadata?.createTime).toBe(w.metadata?.updateTime);
  });

  it('keeps an explicit name, refuses a second create and a name outside the parent', async (context) => {
    const name = perAttempt(context, `${parent}/widgets/w-explicit`);
    await server.admin.create(parent, 'widgets', { name, spec: { size: 3 } });
    expect((await refused(server.admin.create(parent, 'widgets', { name }))).status).toBe('ALREADY_EXISTS');
    const err = await refused(
      server.admin.create('projects/p1/regions/us', 'widgets', { name: `${parent}/widgets/w-x` }),
    );
    expect(err.status).toBe('INVALID_ARGUMENT');
  });

  it('refuses an invalid id, an invalid body and a wildcard parent, writing nothing', async () => {
    expect((await refused(server.admin.create(parent, 'widgets', { name: `${parent}/widgets/Bad_Id` }))).status).toBe(
      'INVALID_ARGUMENT',
    );
    const bad = await refused(
      server.admin.create(parent, 'widgets', { name: `${parent}/widgets/w-bad`, spec: { size: 'x' } }),
    );
    expect(bad.status).toBe('INVALID_ARGUMENT');
    expect(bad.message).toContain('spec.size');
    await refused(server.admin.get(`${parent}/widgets/w-bad`));
    expect((await refused(server.admin.create('projects/p1/regions/-', 'widgets', {}))).status).toBe(
      'INVALID_ARGUMENT',
    );
  });

  it('ignores output-only fields in the body and honours the response mask', async (context) => {
    const name = perAttempt(context, `${parent}/widgets/w-status`);
    const w = await server.admin.create<Widget>(
      parent,
      'widgets',
      { name, status: { counter: 9 }, metadata: { uuid: 'mine', labels: { a: 'b' } } },
      { responseMask: { bodyMask: 'name,metadata.labels,status' } },
    );
    expect(w).toEqual({ name, metadata: { labels: { a: 'b' } } });
    const skipped = await server.admin.create(
      parent,
      'widgets',
      {},
      { responseMask: { skipEntireResponseBody: true } },
    );
    expect(skipped).toEqual({});
  });
});

describe('get and batchGet', () => {
  it('gets with views and field masks', async (context) => {
    const name = perAttempt(context, `${parent}/widgets/w-view`);
    await server.admin.create(parent, 'widgets', { name, displayName: 'V', spec: { color: 'blue', size: 2 } });
    expect(await server.admin.get(name, { view: 'NAME' })).toEqual({ name });
    expect(await server.admin.get(name, { view: 'BASIC' })).toEqual({
      name,
      displayName: 'V',
      spec: { color: 'blue' },
    });
    expect(await server.admin.get(name, { view: 'BASIC', fieldMask: 'spec.size' })).toEqual({
      name,
      displayName: 'V',
      spec: { color: 'blue', size: 2 },
    });
    expect(await server.admin.get(name, { fieldMask: 'spec.size' })).toEqual({ name, spec: { size: 2 } });
    expect((await refused(server.admin.get(name, { fieldMask: 'spec.nope' }))).status).toBe('INVALID_ARGUMENT');
    expect((await refused(server.admin.get(`${parent}/widgets/absent`))).status).toBe('NOT_FOUND');
  });

  it('batchGet lists absent names in missing', async (context) => {
    const name = perAttempt(context, `${parent}/widgets/w-batch`);
    await server.admin.create(parent, 'widgets', { name });
    const result = await server.admin.batchGet('widgets', [name, `${parent}/widgets/ghost`]);
    expect((result as { widgets: Widget[] }).widgets.map((w) => w.name)).toEqual([name]);
    expect(result.missing).toEqual([`${parent}/widgets/ghost`]);
  });
});

describe('update', () => {
  const name = `${parent}/widgets/w-upd`;
  beforeAll(async () => {
    await server.admin.create(parent, 'widgets', {
      name,
      displayName: 'U',
      spec: { color: 'red', size: 1, network: { dhcp: true } },
      metadata: { labels: { keep: 'me' } },
    });
    server.engine.resource('widgets').patch(name, (doc) => ({ ...doc, status: { counter: 5 } }));
  });

  it('with an update mask changes only the masked field', async () => {
    const w = await server.admin.update<Widget>(
      { name, spec: { color: 'green', size: 99 } },
      { updateMask: 'spec.color' },
    );
    expect(w.spec).toEqual({ color: 'green', size: 1, network: { dhcp: true } });
    expect(w.displayName).toBe('U');
    expect(w.status).toEqual({ counter: 5 });
    expect(w.metadata?.generation).toBe(2);
  });

  it('without a mask replaces every writable field but never status', async () => {
    const w = await server.admin.update<Widget>({ name, spec: { color: 'black' }, status: { counter: 0 } });
    expect(w.spec).toEqual({ color: 'black' });
    expect(w.displayName).toBeUndefined();
    expect(w.metadata?.labels).toBeUndefined();
    expect(w.status).toEqual({ counter: 5 });
  });

  it('refuses masks naming unknown or output-only fields, and changes nothing', async () => {
    const before = await server.admin.get<Widget>(name);
    expect((await refused(server.admin.update({ name, spec: {} }, { updateMask: 'spec.bogus' }))).status).toBe(
      'INVALID_ARGUMENT',
    );
    const out = await refused(server.admin.update({ name, status: { counter: 1 } }, { updateMask: 'status.counter' }));
    expect(out.message).toContain('output only');
    expect(await server.admin.get(name)).toEqual(before);
  });

  it('compare-and-swap: a mismatch is ABORTED and changes nothing', async () => {
    await server.admin.update({ name, displayName: 'first' }, { updateMask: 'displayName' });
    const before = await server.admin.get<Widget>(name);
    const err = await refused(
      server.admin.update(
        { name, displayName: 'second' },
        { updateMask: 'displayName', cas: { conditionalState: { displayName: 'stale' }, fieldMask: 'displayName' } },
      ),
    );
    expect(err.status).toBe('ABORTED');
    expect(await server.admin.get(name)).toEqual(before);
    const ok = await server.admin.update<Widget>(
      { name, displayName: 'second' },
      { updateMask: 'displayName', cas: { conditionalState: { displayName: 'first' }, fieldMask: 'displayName' } },
    );
    expect(ok.displayName).toBe('second');
  });

  it('response masks: updatedFieldsOnly and skipEntireResponseBody', async () => {
    const only = await server.admin.update(
      { name, spec: { size: 7 } },
      { updateMask: 'spec.size', responseMask: { updatedFieldsOnly: true } },
    );
    expect(only).toEqual({
      name,
      spec: { size: 7 },
      metadata: expect.objectContaining({ updateTime: expect.any(String), resourceVersion: expect.any(String) }),
    });
    const skipped = await server.admin.update(
      { name, spec: { size: 8 } },
      { updateMask: 'spec.size', responseMask: { skipEntireResponseBody: true } },
    );
    expect(skipped).toEqual({});
  });

  it('allowMissing creates an absent resource, ignoring the mask; without it NOT_FOUND', async (context) => {
    const absent = perAttempt(context, `${parent}/widgets/w-upsert`);
    expect((await refused(server.admin.update({ name: absent, spec: { size: 1 } }))).status).toBe('NOT_FOUND');
    const w = await server.admin.update<Widget>(
      { name: absent, displayName: 'made', spec: { size: 1 } },
      { allowMissing: true, updateMask: 'spec.size' },
    );
    expect(w.displayName).toBe('made');
    expect(w.metadata?.generation).toBe(1);
  });
});

describe('delete', () => {
  it('deletes, then NOT_FOUND unless allowMissing', async (context) => {
    const name = perAttempt(context, `${parent}/widgets/w-del`);
    await server.admin.create(parent, 'widgets', { name });
    await server.admin.delete(name);
    expect((await refused(server.admin.delete(name))).status).toBe('NOT_FOUND');
    await server.admin.delete(name, { allowMissing: true });
  });
});

describe('REST details', () => {
  it('answers malformed JSON and unknown query parameters with INVALID_ARGUMENT bodies', async () => {
    const res = await fetch(`${server.url}/v1/${parent}/widgets`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${'test-admin-key-0123456789abcdef-0123'}`,
        'content-type': 'application/json',
      },
      body: '{"spec": ',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { status: string } }).error.status).toBe('INVALID_ARGUMENT');
    const err = await refused(server.admin.request('GET', `/v1/${parent}/widgets`, { query: { pageSiz: 3 } }));
    expect(err.message).toContain('pageSiz');
  });

  it('checks permissions per route with the key scope', async () => {
    const created = await server.admin.request<{ secret: string }>('POST', '/v1/apiKeys', {
      body: {
        displayName: 'reader',
        grants: [{ permission: 'services/widgets.outpost/permissions/widgets.list', scope: 'projects/p1' }],
      },
    });
    const reader = server.clientWith(created.secret);
    await reader.list(parent, 'widgets');
    expect((await refused(reader.list('projects/p2/regions/eu', 'widgets'))).status).toBe('PERMISSION_DENIED');
    expect((await refused(reader.create(parent, 'widgets', {}))).status).toBe('PERMISSION_DENIED');
    expect((await refused(server.clientWith('opk_nope_nope').list(parent, 'widgets'))).status).toBe('UNAUTHENTICATED');
  });
});
