import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Device } from '@outpost/shared';
import { perAttempt } from '../helpers/per-attempt.js';
import { startTestServer, TEST_ADMIN_KEY } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

const parent = 'projects/acme/regions/eu';
const ED25519 = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILXNHkEUApPE88OR8mPHl+E2GYZJY3lNw8X5aLW1RFbp me@laptop';
const GOOD_NETPLAN = 'network:\n  version: 2\n  ethernets:\n    eth0:\n      addresses: [10.0.0.5/24]\n';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server.dispose());

const send = (method: 'PUT' | 'POST', path: string, body: unknown): Promise<Response> =>
  fetch(`${server.url}/v1/${path}`, {
    method,
    headers: { authorization: `Bearer ${TEST_ADMIN_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

interface ErrorBody {
  error: { code: number; status: string; message: string };
}

async function expectRefused(res: Response, ...messageParts: string[]): Promise<void> {
  const body = (await res.json()) as ErrorBody;
  expect(res.status).toBe(400);
  expect(body.error.status).toBe('INVALID_ARGUMENT');
  for (const part of messageParts) expect(body.error.message).toContain(part);
}

describe('device configuration is checked when written (issue 18)', () => {
  const name = `${parent}/devices/cfg-1`;
  beforeAll(async () => {
    await server.admin.create(parent, 'devices', {
      name,
      spec: { netplanYamlConfig: GOOD_NETPLAN, sshConfig: { sshAuthorized: [{ sshaKey: ED25519 }] } },
    });
  });

  const update = (spec: unknown, mask: string): Promise<Response> =>
    send('PUT', `${name}?updateMask=${mask}`, { name, spec });

  it('a netplan address without a prefix length is refused naming its path, and nothing changes', async () => {
    const before = await server.admin.get<Device>(name);
    const bad = 'network:\n  version: 2\n  ethernets:\n    eth0:\n      addresses: [10.0.0.1]\n';
    await expectRefused(
      await update({ netplanYamlConfig: bad }, 'spec.netplanYamlConfig'),
      'spec.netplanYamlConfig: network.ethernets.eth0.addresses[0]: "10.0.0.1" is not a CIDR address',
    );
    expect(await server.admin.get<Device>(name)).toEqual(before);
  });

  it.each([
    ['YAML that does not parse', { netplanYamlConfig: 'network: [' }, 'spec.netplanYamlConfig', 'is not valid YAML'],
    [
      'a nameserver that is no IP',
      { netplanYamlConfig: 'network: {version: 2, ethernets: {eth0: {nameservers: {addresses: [not-an-ip]}}}}' },
      'spec.netplanYamlConfig',
      'network.ethernets.eth0.nameservers.addresses[0]: "not-an-ip" is not an IP address',
    ],
    [
      'an authorized key that is no OpenSSH key',
      { sshConfig: { sshAuthorized: [{ sshaKey: 'ssh-ed25519 bm90IGEga2V5' }] } },
      'spec.sshConfig',
      'spec.sshConfig.sshAuthorized[0].sshaKey: key data',
    ],
    [
      'an allow-list entry that is no address',
      { sshConfig: { ipAllowList: ['not-an-ip'] } },
      'spec.sshConfig',
      'spec.sshConfig.ipAllowList[0]: "not-an-ip" is not an IP address or CIDR block',
    ],
    [
      'a reject period that is no duration',
      { sshConfig: { rejectPeriod: 'later' } },
      'spec.sshConfig',
      'spec.sshConfig.rejectPeriod: "later" is not a duration',
    ],
    [
      'a proxy that is not http(s)',
      { proxyConfig: { httpsProxy: 'ftp://proxy:21' } },
      'spec.proxyConfig',
      'spec.proxyConfig.httpsProxy: "ftp://proxy:21": a proxy URL is http:// or https://',
    ],
    [
      'a journal size that is no size',
      { loggingConfig: { journalSystemMaxUse: 'huge' } },
      'spec.loggingConfig',
      'spec.loggingConfig.journalSystemMaxUse: "huge" is not a size',
    ],
  ])('%s is 400 INVALID_ARGUMENT and the stored device is unchanged', async (_, spec, mask, message) => {
    const before = await server.admin.get<Device>(name);
    await expectRefused(await update(spec, mask), message);
    expect(await server.admin.get<Device>(name)).toEqual(before);
  });

  it('a good configuration is stored', async () => {
    const spec = {
      netplanYamlConfig: 'network: {version: 2, ethernets: {eth0: {dhcp4: true}}}',
      sshConfig: { sshAuthorized: [{ sshaKey: ED25519 }], ipAllowList: ['10.0.0.0/8'], rejectPeriod: '5m', port: 2222 },
      proxyConfig: { httpProxy: 'http://proxy.lan:3128', noProxy: 'localhost,.lan' },
      loggingConfig: { agentLogLevel: 'debug', journalSystemMaxUse: '200M' },
    };
    const res = await update(spec, 'spec');
    expect(res.status).toBe(200);
    expect((await server.admin.get<Device>(name)).spec).toEqual(spec);
  });

  it('creating a device with a bad configuration creates nothing', async () => {
    const bad = `${parent}/devices/cfg-bad`;
    const res = await send('POST', `${parent}/devices`, {
      name: bad,
      spec: { sshConfig: { sshAuthorized: [{ sshaKey: `${ED25519}\nssh-ed25519 AAAA smuggled` }] } },
    });
    await expectRefused(res, 'spec.sshConfig.sshAuthorized[0].sshaKey: holds control characters');
    const lookup = await fetch(`${server.url}/v1/${bad}`, { headers: { authorization: `Bearer ${TEST_ADMIN_KEY}` } });
    expect(lookup.status).toBe(404);
  });

  it('a value stored before these checks does not block writes to other fields, but is checked when changed', async (context) => {
    const legacy = perAttempt(context, `${parent}/devices/cfg-legacy`);
    await server.admin.create(parent, 'devices', { name: legacy });
    // as an older control plane stored it, unchecked
    server.engine
      .resource('devices')
      .patch(legacy, (d) => ({ ...d, spec: { sshConfig: { ipAllowList: ['not-an-ip'] } } }));
    const labels = await send('PUT', `${legacy}?updateMask=metadata.labels`, { metadata: { labels: { site: 'x' } } });
    expect(labels.status).toBe(200);
    await expectRefused(
      await send('PUT', `${legacy}?updateMask=spec.sshConfig`, { spec: { sshConfig: { ipAllowList: ['still-not'] } } }),
      'spec.sshConfig.ipAllowList[0]: "still-not"',
    );
  });
});
