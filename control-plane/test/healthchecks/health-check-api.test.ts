import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DesiredDevice, HealthCheck } from '@outpost/shared';
import { ApiError } from '@outpost/shared';
import { perAttempt } from '../helpers/per-attempt.js';
import { startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { RawAgent, createDevice } from './helpers/raw-agent.js';

const parent = 'projects/acme/regions/eu';
let server: TestServer;
const agents: RawAgent[] = [];
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await Promise.all(agents.map((a) => a.close()));
  await server.dispose();
});

async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected the call to be refused');
}

describe('HealthCheck resource (projects/{p}/regions/{r}/healthChecks/{id})', () => {
  it('creates, gets, lists with a filter, updates with a mask and deletes through the generic engine', async (context) => {
    // the attempt's own region: the TCP filter finds exactly this attempt's check
    const region = `${perAttempt(context, 'projects/acme')}/regions/eu`;
    const created = await server.admin.create<HealthCheck>(region, 'healthChecks', {
      name: `${region}/healthChecks/web`,
      displayName: 'local web UI',
      spec: {
        type: 'HTTP',
        http: { url: 'http://127.0.0.1:8080/healthz', expectedStatus: { min: 200, max: 204 }, bodyContains: 'ok' },
        intervalSeconds: 30,
        selector: { matchLabels: { role: 'gateway' } },
      },
    });
    expect(created.spec).toEqual({
      type: 'HTTP',
      http: { url: 'http://127.0.0.1:8080/healthz', expectedStatus: { min: 200, max: 204 }, bodyContains: 'ok' },
      intervalSeconds: 30,
      selector: { matchLabels: { role: 'gateway' } },
    });
    await server.admin.create(region, 'healthChecks', {
      name: `${region}/healthChecks/port`,
      spec: { type: 'TCP', tcp: { host: '127.0.0.1', port: 22 } },
    });
    const tcp = await server.admin.list<HealthCheck>(region, 'healthChecks', { filter: 'spec.type = "TCP"' });
    expect(tcp.healthChecks?.map((c) => c.name)).toEqual([`${region}/healthChecks/port`]);
    const updated = await server.admin.update<HealthCheck>(
      {
        name: `${region}/healthChecks/port`,
        spec: { type: 'TCP', tcp: { host: '127.0.0.1', port: 22 }, failureThreshold: 5 },
      },
      { updateMask: 'spec.failureThreshold' },
    );
    expect(updated.spec.failureThreshold).toBe(5);
    expect(updated.metadata?.generation).toBe(2);
    await server.admin.delete(`${region}/healthChecks/port`);
    expect((await refusal(server.admin.get(`${region}/healthChecks/port`))).status).toBe('NOT_FOUND');
  });

  it('refuses definitions that do not fit their type, and changes nothing', async () => {
    const bad = async (spec: unknown, id = 'bad') =>
      refusal(server.admin.create(parent, 'healthChecks', { name: `${parent}/healthChecks/${id}`, spec }));
    expect((await bad({ type: 'TCP', http: { url: 'http://x/' } })).message).toMatch(
      /spec\.tcp: a TCP check needs tcp.*spec\.http: a TCP check takes no http/,
    );
    expect((await bad({ type: 'HTTP', http: { url: 'ftp://x/' } })).message).toMatch(/http\.url/);
    expect((await bad({ type: 'TCP', tcp: { host: 'h', port: 70000 } })).message).toMatch(/spec\.tcp\.port/);
    expect((await bad({ type: 'ICMP', icmp: { host: 'h' }, intervalSeconds: 2, timeoutSeconds: 3 })).message).toMatch(
      /timeoutSeconds: must not be longer than intervalSeconds/,
    );
    expect((await bad({ type: 'COMMAND', command: { argv: [] } })).message).toMatch(/command\.argv/);
    expect((await bad({ type: 'DEVICE_FILE', deviceFile: { path: 'relative' } })).message).toMatch(/absolute path/);
    expect((await bad({ type: 'QUIC' })).message).toMatch(/spec\.type/);
    const badId = await bad({ type: 'ICMP', icmp: { host: 'h' } }, 'Not_An_Id');
    expect(badId.status).toBe('INVALID_ARGUMENT');
    const all = await server.admin.list<HealthCheck>(parent, 'healthChecks', { filter: 'name = "bad"' });
    expect(all.healthChecks ?? []).toEqual([]);
  });
});

describe('the gateway sends each device the checks that apply to it, and pushes again when they change', () => {
  it('selector, spec.healthChecks, label changes, check changes and deletes all reach the agent', async (context) => {
    const project = perAttempt(context, 'projects/acme');
    const region = `${project}/regions/north`;
    const credential = await createDevice(server, `${region}/devices/gw-1`, { role: 'gateway' });
    const agent = await RawAgent.connect(server, credential);
    agents.push(agent);
    const checksOf = (device: DesiredDevice | undefined): string[] =>
      (device?.healthChecks ?? []).map((c) => `${String(c['id'])}:${String((c['spec'] as { type: string }).type)}`);
    expect(agent.specs().at(-1)?.healthChecks).toBeUndefined();
    const atConnect = agent.specs().length;

    // a check selecting the device's labels is pushed at once, without its selector
    let pushed = await agent.specPushedBy(() =>
      server.admin.create(region, 'healthChecks', {
        name: `${region}/healthChecks/web`,
        spec: { type: 'HTTP', http: { url: 'http://127.0.0.1/' }, selector: { matchLabels: { role: 'gateway' } } },
      }),
    );
    expect(pushed.healthChecks).toEqual([
      { name: `${region}/healthChecks/web`, id: 'web', spec: { type: 'HTTP', http: { url: 'http://127.0.0.1/' } } },
    ]);

    // checks elsewhere or selecting other labels do not concern it: no push
    await server.admin.create(`${project}/regions/south`, 'healthChecks', {
      name: `${project}/regions/south/healthChecks/web`,
      spec: { type: 'ICMP', icmp: { host: '127.0.0.1' }, selector: { matchLabels: {} } },
    });
    await server.admin.create(region, 'healthChecks', {
      name: `${region}/healthChecks/disk`,
      spec: { type: 'DEVICE_FILE', deviceFile: { path: '/dev/sda' }, selector: { matchLabels: { role: 'camera' } } },
    });

    // naming a check in spec.healthChecks adds it
    pushed = await agent.specPushedBy(() =>
      server.admin.update(
        { name: `${region}/devices/gw-1`, spec: { healthChecks: ['disk'] } },
        { updateMask: 'spec.healthChecks' },
      ),
    );
    expect(checksOf(pushed)).toEqual(['disk:DEVICE_FILE', 'web:HTTP']);

    // a label change that unselects it takes the selected check away
    pushed = await agent.specPushedBy(() =>
      server.admin.update(
        { name: `${region}/devices/gw-1`, metadata: { labels: { role: 'camera-less' } } },
        { updateMask: 'metadata.labels' },
      ),
    );
    expect(checksOf(pushed)).toEqual(['disk:DEVICE_FILE']);

    // changing the check it runs pushes the new definition; deleting it takes it away
    pushed = await agent.specPushedBy(() =>
      server.admin.update(
        { name: `${region}/healthChecks/disk`, spec: { type: 'DEVICE_FILE', deviceFile: { path: '/dev/sdb' } } },
        { updateMask: 'spec.deviceFile.path' },
      ),
    );
    expect(pushed.healthChecks?.[0]?.['spec']).toMatchObject({ deviceFile: { path: '/dev/sdb' } });
    pushed = await agent.specPushedBy(() => server.admin.delete(`${region}/healthChecks/disk`));
    expect(pushed.healthChecks).toBeUndefined();
    expect(agent.specs()).toHaveLength(atConnect + 5); // and no push for the checks that do not concern it
  });
});
