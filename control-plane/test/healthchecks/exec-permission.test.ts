import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { perAttempt } from '../helpers/per-attempt.js';
import { startTestServer, TEST_ADMIN_KEY, type TestServer } from '../helpers/test-server.js';
import { createDevice } from './helpers/raw-agent.js';

const region = 'projects/acme/regions/eu';
const DEVICES = 'services/devices.outpost/permissions';
const EXEC = `${DEVICES}/devices.exec`;
const EXEC_AS_ROOT = `${DEVICES}/devices.execAsRoot`;
const CHECKS_ANY = `${DEVICES}/healthChecks.*`;
const PODS_ANY = 'services/applications.outpost/permissions/pods.*';

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

const errorOf = (answer: Answer): { code?: number; status?: string; message?: string } =>
  (answer.body['error'] ?? {}) as { code?: number; status?: string; message?: string };

describe('running programs on devices needs devices.exec (COMMAND checks, pods), as root devices.execAsRoot', () => {
  let server: TestServer;
  let checksOnly: string;
  let checksAndExec: string;
  let checksExecAndRoot: string;
  let podsOnly: string;
  let podsAndExec: string;

  beforeAll(async () => {
    server = await startTestServer();
    await createDevice(server, `${region}/devices/box`);
    const on = (...permissions: string[]) => permissions.map((permission) => ({ permission, scope: 'projects/acme' }));
    checksOnly = await mint(on(CHECKS_ANY));
    checksAndExec = await mint(on(CHECKS_ANY, EXEC));
    checksExecAndRoot = await mint(on(CHECKS_ANY, EXEC, EXEC_AS_ROOT));
    podsOnly = await mint(on(PODS_ANY));
    podsAndExec = await mint(on(PODS_ANY, EXEC));
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
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  async function mint(grants: { permission: string; scope: string }[]): Promise<string> {
    const created = await call('POST', '/v1/apiKeys', TEST_ADMIN_KEY, { displayName: 'probe', grants });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    return String(created.body['secret']);
  }

  const commandCheck = (id: string, command: Record<string, unknown>) => ({
    name: `${region}/healthChecks/${id}`,
    spec: { type: 'COMMAND', command, selector: { matchLabels: {} } },
  });
  const createCheck = (key: string, check: { name: string; spec: unknown }) =>
    call('POST', `/v1/${region}/healthChecks`, key, check);
  const exists = async (name: string) => (await call('GET', `/v1/${name}`, TEST_ADMIN_KEY)).status === 200;

  it('refuses a COMMAND check to a key holding only healthChecks.*, naming devices.exec, and creates nothing', async () => {
    const refused = await createCheck(checksOnly, commandCheck('whoami', { argv: ['id', '-u'] }));
    expect(refused.status).toBe(403);
    expect(errorOf(refused)).toEqual({
      code: 403,
      status: 'PERMISSION_DENIED',
      message: `missing permission ${EXEC} on ${region}`,
    });
    expect(await exists(`${region}/healthChecks/whoami`)).toBe(false);
  });

  it('lets the same key create checks that run no program', async (context) => {
    const http = await createCheck(checksOnly, {
      name: `${region}/healthChecks/${perAttempt(context, 'web')}`,
      spec: { type: 'HTTP', http: { url: 'http://127.0.0.1:8000/' } },
    });
    expect(http.status, JSON.stringify(http.body)).toBe(200);
  });

  it('creates a COMMAND check for a key holding devices.exec; running it as root needs devices.execAsRoot', async (context) => {
    const disk = commandCheck(perAttempt(context, 'disk'), { argv: ['test', '-w', '/outpost'] });
    const created = await createCheck(checksAndExec, disk);
    expect(created.status, JSON.stringify(created.body)).toBe(200);

    const asRoot = commandCheck(perAttempt(context, 'root-disk'), { argv: ['test', '-w', '/'], runAsRoot: true });
    const refused = await createCheck(checksAndExec, asRoot);
    expect(refused.status).toBe(403);
    expect(errorOf(refused).message).toBe(`missing permission ${EXEC_AS_ROOT} on ${region}`);
    expect(await exists(asRoot.name)).toBe(false);

    const granted = await createCheck(checksExecAndRoot, asRoot);
    expect(granted.status, JSON.stringify(granted.body)).toBe(200);
    expect((granted.body['spec'] as { command: unknown }).command).toEqual({
      argv: ['test', '-w', '/'],
      runAsRoot: true,
    });
  });

  it('needs devices.exec to change what a COMMAND check runs or where, not to rename it', async (context) => {
    // the attempt's own check (a retry finds its first attempt's changes on a shared one)
    const check = commandCheck(perAttempt(context, 'edited'), { argv: ['test', '-w', '/outpost'] });
    expect((await createCheck(checksAndExec, check)).status).toBe(200);
    const name = check.name;
    const changeArgv = await call('PATCH', `/v1/${name}?updateMask=spec.command`, checksOnly, {
      spec: { type: 'COMMAND', command: { argv: ['sh', '-c', 'cat /etc/shadow'] } },
    });
    expect(changeArgv.status).toBe(403);
    expect(errorOf(changeArgv).message).toBe(`missing permission ${EXEC} on ${region}`);
    const widen = await call('PATCH', `/v1/${name}?updateMask=spec.selector`, checksOnly, {
      spec: { selector: { matchLabels: { role: 'any' } } },
    });
    expect(widen.status).toBe(403);
    const stored = (await call('GET', `/v1/${name}`, TEST_ADMIN_KEY)).body['spec'];
    expect(stored).toMatchObject({ command: { argv: ['test', '-w', '/outpost'] }, selector: { matchLabels: {} } });

    const rename = await call('PATCH', `/v1/${name}?updateMask=displayName`, checksOnly, { displayName: 'disk' });
    expect(rename.status, JSON.stringify(rename.body)).toBe(200);
    const byExec = await call('PATCH', `/v1/${name}?updateMask=spec.command`, checksAndExec, {
      spec: { type: 'COMMAND', command: { argv: ['test', '-w', '/outpost/data'] } },
    });
    expect(byExec.status, JSON.stringify(byExec.body)).toBe(200);
    // making it run as root is a change of what it runs
    const toRoot = await call('PATCH', `/v1/${name}?updateMask=spec.command`, checksAndExec, {
      spec: { type: 'COMMAND', command: { argv: ['test', '-w', '/outpost/data'], runAsRoot: true } },
    });
    expect(toRoot.status).toBe(403);
    expect(errorOf(toRoot).message).toBe(`missing permission ${EXEC_AS_ROOT} on ${region}`);
  });

  it('needs devices.exec to create a pod or change its spec; runAsRoot needs devices.execAsRoot', async (context) => {
    const pod = {
      name: `${region}/pods/${perAttempt(context, 'app')}`,
      spec: { node: `${region}/devices/box`, services: [{ name: 'main', command: ['sleep', '1000'] }] },
    };
    const create = (key: string, body: typeof pod) => call('POST', `/v1/${region}/pods`, key, body);
    const refused = await create(podsOnly, pod);
    expect(refused.status).toBe(403);
    expect(errorOf(refused).message).toBe(`missing permission ${EXEC} on ${region}`);
    expect(await exists(pod.name)).toBe(false);

    const asRoot = await create(podsAndExec, { ...pod, spec: { ...pod.spec, runAsRoot: true } as typeof pod.spec });
    expect(asRoot.status).toBe(403);
    expect(errorOf(asRoot).message).toBe(`missing permission ${EXEC_AS_ROOT} on ${region}`);

    expect((await create(podsAndExec, pod)).status).toBe(200);
    const change = await call('PATCH', `/v1/${pod.name}?updateMask=spec.services`, podsOnly, {
      spec: { services: [{ name: 'main', command: ['sh', '-c', 'id'] }] },
    });
    expect(change.status).toBe(403);
    expect(errorOf(change).message).toBe(`missing permission ${EXEC} on ${region}`);
    const label = await call('PATCH', `/v1/${pod.name}?updateMask=metadata.labels`, podsOnly, {
      metadata: { labels: { tier: 'web' } },
    });
    expect(label.status, JSON.stringify(label.body)).toBe(200);
  });
});
