import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile, stat, writeFile, mkdir } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { readFileDeviceKey } from '@outpost/shared';
import { ConfigError, parseDropletConfig, readDropletConfig } from '../../src/config/droplet-config.js';
import { loadOrProvision } from '../../src/config/load-or-provision.js';
import type { ProvisioningDeps } from '../../src/config/load-or-provision.js';
import { agentPaths } from '../../src/config/paths.js';
import { registerDevice } from '../../src/config/register-device.js';
import { capturedLogger } from '../helpers/captured-logger.js';
import { useTempDirs } from '../helpers/temp-dir.js';

const tempDir = useTempDirs();

interface Registration {
  url: string;
  authorization: string | undefined;
  body: unknown;
}

const servers: { close(): void }[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** A real HTTP server answering registrations with the given responses in turn. */
async function registrationServer(
  answers: { status: number; body: unknown }[],
): Promise<{ url: string; registrations: Registration[] }> {
  const registrations: Registration[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      registrations.push({
        url: request.url ?? '',
        authorization: request.headers.authorization,
        body: JSON.parse(text),
      });
      const answer = answers[Math.min(registrations.length - 1, answers.length - 1)] ?? { status: 500, body: {} };
      response.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, registrations };
}

const deps = (): ProvisioningDeps => ({
  register: registerDevice,
  deviceInfo: async () => ({ osVersion: '1.0.0', architecture: 'amd64' }),
  logger: capturedLogger().logger,
});

const registered = {
  status: 200,
  body: { device: { name: 'projects/p1/regions/eu/devices/edge-1' }, credential: 'cred-123' },
};

describe('loadOrProvision', () => {
  it('registers with the provisioning token and writes config and credential', async () => {
    const paths = agentPaths(await tempDir());
    const server = await registrationServer([registered]);
    const identity = await loadOrProvision(
      paths,
      {
        server: server.url,
        provisioningToken: 'tok',
        project: 'p1',
        region: 'eu',
        deviceId: 'edge-1',
        deviceType: 'qemu-x86-64',
        bootBackend: 'file',
      },
      deps(),
    );

    expect(server.registrations).toEqual([
      {
        url: '/v1/projects/p1/regions/eu/devices:register',
        authorization: 'Bearer tok',
        body: {
          deviceId: 'edge-1',
          deviceInfo: { osVersion: '1.0.0', architecture: 'amd64' },
          publicKey: expect.stringMatching(/^-----BEGIN PUBLIC KEY-----/),
        },
      },
    ]);
    expect(identity).toEqual({
      provisioned: true,
      credential: 'cred-123',
      config: {
        server: server.url,
        deviceName: 'projects/p1/regions/eu/devices/edge-1',
        deviceType: 'qemu-x86-64',
        bootBackend: 'file',
      },
    });
    expect(await readDropletConfig(paths.configFile)).toEqual(identity.config);
    expect(await readFile(paths.credentialFile, 'utf8')).toBe('cred-123\n');
    expect((await stat(paths.credentialFile)).mode & 0o777).toBe(0o600);
    // a server that answers with a credential did not take the key: none is left to offer it
    expect(await readFileDeviceKey(paths.identityDir)).toBeUndefined();
  });

  it('makes a key pair before registering and sends its public key; the server keeps only that', async () => {
    const paths = agentPaths(await tempDir());
    const server = await registrationServer([{ status: 200, body: { device: { name: registered.body.device.name } } }]);
    const identity = await loadOrProvision(
      paths,
      { server: server.url, provisioningToken: 'tok', project: 'p1', region: 'eu', deviceId: 'edge-1' },
      deps(),
    );
    const key = await readFileDeviceKey(paths.identityDir);
    expect(key).toBeDefined();
    expect(server.registrations[0]?.body).toMatchObject({ publicKey: await key!.publicKey() });
    expect(identity).toMatchObject({
      provisioned: true,
      config: { deviceName: 'projects/p1/regions/eu/devices/edge-1' },
    });
    expect(identity.credential).toBeUndefined();
    await expect(stat(paths.credentialFile)).rejects.toThrow(/ENOENT/);
    for (const file of ['private-key.pem', 'public-key.pem']) {
      expect((await stat(join(paths.identityDir, file))).mode & 0o777).toBe(0o600);
    }
    const again = await loadOrProvision(paths, {}, deps());
    expect(again).toMatchObject({
      provisioned: false,
      config: { deviceName: 'projects/p1/regions/eu/devices/edge-1' },
    });
    expect(server.registrations).toHaveLength(1);
  });

  it('uses the stored identity once provisioned, without calling the server', async () => {
    const paths = agentPaths(await tempDir());
    const server = await registrationServer([registered]);
    const options = { server: server.url, provisioningToken: 'tok', project: 'p1', region: 'eu', deviceId: 'edge-1' };
    await loadOrProvision(paths, options, deps());
    const again = await loadOrProvision(paths, { provisioningToken: 'tok', metricsIntervalSeconds: 5 }, deps());
    expect(again).toMatchObject({ provisioned: false, credential: 'cred-123', config: { metricsIntervalSeconds: 5 } });
    expect(server.registrations).toHaveLength(1);
  });

  it('refuses clearly without a credential or a provisioning token', async () => {
    const paths = agentPaths(await tempDir());
    await expect(loadOrProvision(paths, {}, deps())).rejects.toThrow(ConfigError);
    await expect(loadOrProvision(paths, {}, deps())).rejects.toThrow(/not provisioned .*--provisioning-token/);
  });

  it('names every missing registration option', async () => {
    const paths = agentPaths(await tempDir());
    await expect(loadOrProvision(paths, { provisioningToken: 't', server: 'http://x' }, deps())).rejects.toThrow(
      'registering with a provisioning token also needs --project, --region, --device-id',
    );
    await expect(
      loadOrProvision(
        paths,
        { provisioningToken: 't', server: 'http://x', project: 'p', region: 'r', deviceId: 'Bad_Id' },
        deps(),
      ),
    ).rejects.toThrow(/not a device id/);
  });

  it('stops on a refused token, writing nothing', async () => {
    const paths = agentPaths(await tempDir());
    const server = await registrationServer([
      { status: 401, body: { error: { code: 401, status: 'UNAUTHENTICATED', message: 'unknown provisioning token' } } },
    ]);
    await expect(
      loadOrProvision(
        paths,
        { server: server.url, provisioningToken: 'bad', project: 'p', region: 'r', deviceId: 'd1' },
        deps(),
      ),
    ).rejects.toThrow('the server refused to register the device: UNAUTHENTICATED: unknown provisioning token');
    await expect(stat(paths.credentialFile)).rejects.toThrow(/ENOENT/);
  });

  it('retries while the server is unavailable', async () => {
    const paths = agentPaths(await tempDir());
    const server = await registrationServer([
      { status: 503, body: { error: { code: 503, status: 'UNAVAILABLE', message: 'starting' } } },
      registered,
    ]);
    const identity = await loadOrProvision(
      paths,
      { server: server.url, provisioningToken: 't', project: 'p1', region: 'eu', deviceId: 'edge-1' },
      deps(),
    );
    expect(identity.credential).toBe('cred-123');
    expect(server.registrations).toHaveLength(2);
  });
});

describe('droplet.json', () => {
  it('refuses an unusable config clearly', async () => {
    expect(() => parseDropletConfig({ deviceName: 'd' }, 'droplet.json')).toThrow(
      'droplet.json: "server" must be a non-empty string',
    );
    expect(() => parseDropletConfig({ server: 'ftp://x', deviceName: 'd' }, 'c')).toThrow(/http\(s\) URL/);
    expect(() => parseDropletConfig({ server: 'http://x', deviceName: 'd', bootBackend: 'lilo' }, 'c')).toThrow(
      /grubenv, uboot, file, none/,
    );
    expect(() => parseDropletConfig({ server: 'http://x', deviceName: 'd', metricsIntervalSeconds: 0 }, 'c')).toThrow(
      /positive/,
    );
    const dir = await tempDir();
    await mkdir(`${dir}/config`);
    await writeFile(`${dir}/config/droplet.json`, '[]');
    await expect(readDropletConfig(`${dir}/config/droplet.json`)).rejects.toThrow(/expected a JSON object/);
  });
});
