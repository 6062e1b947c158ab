import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestContext } from 'vitest';
import { ApiError } from '@outpost/shared';
import type { DesiredDevice, Pod } from '@outpost/shared';
import { perAttempt } from '../helpers/per-attempt.js';
import { startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { ScriptedAgent, createDevice } from '../transfer/scripted-agent.js';

const region = 'projects/shop/regions/eu';
let server: TestServer;
const agents: ScriptedAgent[] = [];
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await Promise.all(agents.map((a) => a.close()));
  await server.dispose();
});

const SERVICES = [
  { name: 'web', command: ['httpd', '-f'] },
  { name: 'cache', image: 'redis:7' },
];

async function refusal(pending: Promise<unknown>): Promise<ApiError> {
  try {
    await pending;
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

async function connectedDevice(context: TestContext, id: string): Promise<{ name: string; agent: ScriptedAgent }> {
  const name = perAttempt(context, `${region}/devices/${id}`);
  const agent = await ScriptedAgent.connect(server.url, await createDevice(server.admin, name));
  agents.push(agent);
  return { name, agent };
}

const lastSpec = (agent: ScriptedAgent): DesiredDevice => agent.all('spec').at(-1)!['device'] as DesiredDevice;

const eventually = async (check: () => unknown, timeoutMs = 10_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
};

describe('Pod resource (projects/{p}/regions/{r}/pods/{pod})', () => {
  it('is created, listed by node, updated and deleted through the generic engine', async (context) => {
    const device = perAttempt(context, `${region}/devices/crud-box`);
    const crud = perAttempt(context, `${region}/pods/crud`);
    await createDevice(server.admin, device);
    const created = await server.admin.create<Pod>(region, 'pods', {
      name: crud,
      displayName: 'storefront',
      spec: { node: device, services: SERVICES, restartPolicy: 'ON_FAILURE' },
      status: { phase: 'RUNNING' }, // output only: ignored
    });
    expect(created.status).toBeUndefined();
    expect(created.metadata?.generation).toBe(1);
    const listed = await server.admin.list<Pod>(region, 'pods', { filter: `spec.node = "${device}"`, view: 'BASIC' });
    expect(listed['pods']?.map((p) => p.name)).toEqual([crud]);
    const updated = await server.admin.update<Pod>(
      { name: crud, spec: { node: device, services: [SERVICES[0]!] } },
      { updateMask: 'spec.services' },
    );
    expect(updated.metadata?.generation).toBe(2);
    expect(updated.spec.restartPolicy).toBe('ON_FAILURE');
    await server.admin.delete(crud);
  });

  it('refuses invalid pods clearly', async () => {
    const pod = (spec: unknown) => server.admin.create(region, 'pods', { name: `${region}/pods/bad`, spec });
    expect(await refusal(pod({ node: 'projects/other/regions/eu/devices/x1', services: SERVICES }))).toMatchObject({
      status: 'INVALID_ARGUMENT',
      message: expect.stringMatching(/project and region/),
    });
    expect(await refusal(pod({ node: `${region}/devices/missing`, services: SERVICES }))).toMatchObject({
      status: 'FAILED_PRECONDITION',
      message: expect.stringMatching(/does not exist/),
    });
    expect(await refusal(pod({ node: 'not-a-device', services: SERVICES }))).toMatchObject({
      status: 'INVALID_ARGUMENT',
    });
    expect(await refusal(pod({ services: [{ name: 'x' }] }))).toMatchObject({
      message: expect.stringMatching(/a command or an image/),
    });
    expect(await refusal(pod({ services: [SERVICES[0], SERVICES[0]] }))).toMatchObject({
      message: expect.stringMatching(/unique/),
    });
    expect(await refusal(pod({ services: [] }))).toMatchObject({ status: 'INVALID_ARGUMENT' });
  });
});

describe('pods and their devices', () => {
  it('a device is sent the pods whose spec.node it is, again whenever one changes', async (context) => {
    const { name, agent } = await connectedDevice(context, 'spec-box');
    await agent.next('spec');
    expect(lastSpec(agent).pods).toBeUndefined();
    const pod = perAttempt(context, `${region}/pods/spec-pod`);
    await server.admin.create(region, 'pods', { name: pod, spec: { node: name, services: SERVICES } });
    await eventually(() =>
      expect(lastSpec(agent).pods).toEqual([{ name: pod, generation: 1, spec: { node: name, services: SERVICES } }]),
    );
    await server.admin.update(
      { name: pod, spec: { node: name, services: [SERVICES[0]!] } },
      { updateMask: 'spec.services' },
    );
    await eventually(() => expect(lastSpec(agent).pods?.[0]).toMatchObject({ generation: 2 }));
    const specs = agent.all('spec').length;
    // the status a device reports is not sent back to it
    agent.send({ type: 'podStatus', pods: [{ name: pod, status: { phase: 'RUNNING' } }] });
    await eventually(async () => expect((await server.admin.get<Pod>(pod)).status?.phase).toBe('RUNNING'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(agent.all('spec')).toHaveLength(specs);
    await server.admin.delete(pod);
    await eventually(() => expect(lastSpec(agent).pods).toBeUndefined());
  });

  it('writes what a device reports only into its own pods, and shows them UNKNOWN while it is offline', async (context) => {
    const { name, agent } = await connectedDevice(context, 'status-box');
    const other = await connectedDevice(context, 'other-box');
    const pod = perAttempt(context, `${region}/pods/status-pod`);
    await server.admin.create(region, 'pods', { name: pod, spec: { node: name, services: SERVICES } });
    other.agent.send({ type: 'podStatus', pods: [{ name: pod, status: { phase: 'FAILED' } }] });
    agent.send({
      type: 'podStatus',
      pods: [
        {
          name: pod,
          status: { phase: 'RUNNING', observedGeneration: 1, serviceStatuses: [{ name: 'web', state: 'RUNNING' }] },
        },
      ],
    });
    let stored: Pod | undefined;
    await eventually(async () => {
      stored = await server.admin.get<Pod>(pod);
      expect(stored.status?.phase).toBe('RUNNING');
    });
    expect(stored?.status?.serviceStatuses).toEqual([{ name: 'web', state: 'RUNNING' }]);
    await agent.close();
    await eventually(async () => expect((await server.admin.get<Pod>(pod)).status?.phase).toBe('UNKNOWN'), 20_000);
  });

  it('shows pods UNKNOWN after a connection so short its CONNECTED and DISCONNECTED were written together', async (context) => {
    const name = perAttempt(context, `${region}/devices/brief-box`);
    const credential = await createDevice(server.admin, name);
    const pod = perAttempt(context, `${region}/pods/brief-pod`);
    await server.admin.create(region, 'pods', { name: pod, spec: { node: name, services: SERVICES } });
    const agent = await ScriptedAgent.connect(server.url, credential);
    agent.send({ type: 'podStatus', pods: [{ name: pod, status: { phase: 'RUNNING' } }] });
    await agent.close();
    await eventually(async () => expect((await server.admin.get<Pod>(pod)).status?.phase).toBe('UNKNOWN'));
  });
});

describe(':start, :stop and :restart', () => {
  it('carry the action to the device over its connection and store the status it answers', async (context) => {
    const { name, agent } = await connectedDevice(context, 'control-box');
    const pod = perAttempt(context, `${region}/pods/control`);
    await server.admin.create(region, 'pods', { name: pod, spec: { node: name, services: SERVICES } });
    const asked: unknown[] = [];
    agent.on('pods.control', (args) => {
      asked.push(args);
      return { phase: 'RUNNING', serviceStatuses: [{ name: 'web', state: 'RUNNING', restartCount: 1 }] };
    });
    const restarted = await server.admin.request<Pod>('POST', `/v1/${pod}:restart`, { body: {} });
    expect(restarted.status).toMatchObject({ phase: 'RUNNING', serviceStatuses: [{ restartCount: 1 }] });
    await server.admin.request('POST', `/v1/${pod}:stop`, { body: { service: 'web' } });
    await server.admin.request('POST', `/v1/${pod}:start`, { body: { service: 'cache' } });
    expect(asked).toEqual([
      { pod, action: 'RESTART' },
      { pod, action: 'STOP', service: 'web' },
      { pod, action: 'START', service: 'cache' },
    ]);
    expect(await refusal(server.admin.request('POST', `/v1/${pod}:stop`, { body: { service: 'nope' } }))).toMatchObject(
      {
        status: 'NOT_FOUND',
      },
    );
    expect(await refusal(server.admin.request('POST', `/v1/${pod}:stop`, { body: { services: 'web' } }))).toMatchObject(
      {
        status: 'INVALID_ARGUMENT',
      },
    );
    expect(asked).toHaveLength(3);

    agent.on('pods.control', () => {
      throw new ApiError('NOT_FOUND', 'pod is not deployed on this device');
    });
    expect(await refusal(server.admin.request('POST', `/v1/${pod}:start`, { body: {} }))).toMatchObject({
      status: 'NOT_FOUND',
      message: 'device: pod is not deployed on this device',
    });
  });

  it('need a node, an online device, and the permission', async (context) => {
    const device = perAttempt(context, `${region}/devices/offline-box`);
    await createDevice(server.admin, device);
    const nodeless = perAttempt(context, `${region}/pods/nodeless`);
    await server.admin.create(region, 'pods', { name: nodeless, spec: { services: SERVICES } });
    expect(await refusal(server.admin.request('POST', `/v1/${nodeless}:restart`, { body: {} }))).toMatchObject({
      status: 'FAILED_PRECONDITION',
      message: expect.stringMatching(/set spec\.node/),
    });
    const pod = perAttempt(context, `${region}/pods/offline`);
    await server.admin.create(region, 'pods', { name: pod, spec: { node: device, services: SERVICES } });
    expect(await refusal(server.admin.request('POST', `/v1/${pod}:restart`, { body: {} }))).toMatchObject({
      status: 'UNAVAILABLE',
      message: `cannot restart ${pod}: device "${device}" is offline: the command needs it connected`,
    });
    const { secret } = await server.admin.request<{ secret: string }>('POST', '/v1/apiKeys', {
      body: {
        displayName: 'viewer',
        grants: [{ permission: 'services/applications.outpost/permissions/pods.get', scope: 'projects/shop' }],
      },
    });
    expect(await refusal(server.clientWith(secret).request('POST', `/v1/${pod}:restart`, { body: {} }))).toMatchObject({
      status: 'PERMISSION_DENIED',
      message: expect.stringMatching(/pods\.restart/),
    });
  });
});
