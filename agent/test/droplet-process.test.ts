import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { readJsonFile } from '@outpost/shared';
import { agentPaths } from '../src/config/paths.js';
import { builtDroplet } from './helpers/built-droplet.js';
import { eventually } from './helpers/eventually.js';
import { TestGateway } from './helpers/test-gateway.js';
import { useTempDirs } from './helpers/temp-dir.js';

const tempDir = useTempDirs();
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

interface Droplet {
  child: ChildProcess;
  output: () => string;
  exit: Promise<number | null>;
}

const running: Droplet[] = [];
afterEach(() => {
  for (const droplet of running.splice(0)) droplet.child.kill('SIGKILL');
});

/** The real droplet command in a child process (the built agent/dist/main.js). */
function droplet(args: string[]): Droplet {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('DROPLET_')) delete env[key];
  const child = spawn(process.execPath, [builtDroplet(), ...args], { cwd: repoRoot, env });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const handle = { child, output: () => output, exit };
  running.push(handle);
  return handle;
}

/** Registration endpoint of the test control plane. */
function registrationHandler(registrations: { authorization?: string; body: unknown }[]) {
  return (request: IncomingMessage, response: ServerResponse): void => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/projects/p1/regions/eu/devices:register') {
        response.writeHead(404).end();
        return;
      }
      registrations.push({ authorization: request.headers.authorization, body: JSON.parse(text) });
      if (request.headers.authorization !== 'Bearer prov-token') {
        response.writeHead(401, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { code: 401, status: 'UNAUTHENTICATED', message: 'bad token' } }));
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({ device: { name: 'projects/p1/regions/eu/devices/edge-1' }, credential: 'device-cred' }),
      );
    });
  };
}

describe('droplet (a real child process)', () => {
  it('provisions itself, connects, reports, takes specs, and runs again from its stored config', async () => {
    const registrations: { authorization?: string; body: unknown }[] = [];
    const gateway = await TestGateway.start({
      onRequest: registrationHandler(registrations),
      refuseUpgrade: (request) => (request.headers.authorization === 'Bearer device-cred' ? undefined : 401),
    });
    try {
      const deviceRoot = await tempDir();
      const paths = agentPaths(deviceRoot);
      const first = droplet([
        '--device-root',
        deviceRoot,
        '--server',
        gateway.url,
        '--provisioning-token',
        'prov-token',
        '--project',
        'p1',
        '--region',
        'eu',
        '--device-id',
        'edge-1',
        '--device-type',
        'qemu-x86-64',
        '--boot-backend',
        'file',
        '--factory-version',
        '1.0.0',
        '--metrics-interval',
        '0.2',
      ]);

      const connection = await gateway.connection(0).catch((err: unknown) => {
        throw new Error(`${String(err)}\n${first.output()}`);
      });
      expect(registrations).toHaveLength(1);
      expect(registrations[0]).toMatchObject({ authorization: 'Bearer prov-token', body: { deviceId: 'edge-1' } });
      expect(connection.authorization).toBe('Bearer device-cred');
      const hello = await connection.waitFor('hello');
      expect(hello).toMatchObject({
        agentVersion: expect.stringMatching(/^\d+\.\d+\.\d+/),
        bootId: expect.any(String),
      });

      expect(await readJsonFile(paths.configFile)).toMatchObject({
        server: gateway.url,
        deviceName: 'projects/p1/regions/eu/devices/edge-1',
        bootBackend: 'file',
        factoryVersion: '1.0.0',
      });
      expect((await stat(paths.credentialFile)).mode & 0o777).toBe(0o600);

      connection.welcome();
      await connection.waitFor('getSpec');
      // the first status may go out before the machine's facts are read; a complete one follows
      const status = await connection.waitFor('status', (m) => JSON.stringify(m).includes('managedFeatures'));
      expect(status).toMatchObject({
        deviceInfo: {
          osVersion: '1.0.0',
          deviceType: 'qemu-x86-64',
          operatingSystem: 'Linux',
          managedFeatures: { os: true },
        },
      });
      await eventually(() => expect(connection.count('metrics')).toBeGreaterThanOrEqual(2));

      connection.send({
        type: 'spec',
        device: {
          name: 'projects/p1/regions/eu/devices/edge-1',
          spec: { osVersion: '1.1.0' },
          metadata: { generation: 2 },
        },
      });
      await eventually(async () =>
        expect(await readJsonFile(paths.desiredDeviceFile)).toMatchObject({
          spec: { osVersion: '1.1.0' },
          metadata: { generation: 2 },
        }),
      );
      connection.send('{"type":"spec"');
      await connection.waitFor('error', (m) => String(m.message).includes('not JSON'));
      connection.send({ type: 'ping', nonce: 'alive' });
      await connection.waitFor('pong', (m) => m.nonce === 'alive');

      first.child.kill('SIGTERM');
      expect(await first.exit).toBe(0);
      await connection.closed;
      expect(await readJsonFile(paths.stateFile)).toMatchObject({ osVersion: '1.0.0', lastBootId: hello.bootId });

      const second = droplet(['--device-root', deviceRoot]);
      const reconnection = await gateway.connection(1).catch((err: unknown) => {
        throw new Error(`${String(err)}\n${second.output()}`);
      });
      expect(reconnection.authorization).toBe('Bearer device-cred');
      expect(await reconnection.waitFor('hello')).toMatchObject({ bootId: hello.bootId });
      expect(registrations).toHaveLength(1);
      second.child.kill('SIGTERM');
      expect(await second.exit).toBe(0);
    } finally {
      await gateway.close();
    }
  });

  it('refuses clearly to run an unprovisioned device without a token (exit 78, no restart loop)', async () => {
    const run = droplet(['--device-root', await tempDir()]);
    expect(await run.exit).toBe(78);
    expect(run.output()).toMatch(/droplet: this device is not provisioned .*--provisioning-token/);
  });

  it('exits 78 when the server refuses the provisioning token', async () => {
    const gateway = await TestGateway.start({ onRequest: registrationHandler([]) });
    try {
      const deviceRoot = await tempDir();
      const run = droplet([
        '--device-root',
        deviceRoot,
        '--server',
        gateway.url,
        '--provisioning-token',
        'wrong',
        '--project',
        'p1',
        '--region',
        'eu',
        '--device-id',
        'edge-1',
      ]);
      expect(await run.exit).toBe(78);
      expect(run.output()).toContain('the server refused to register the device: UNAUTHENTICATED: bad token');
      await expect(readFile(agentPaths(deviceRoot).credentialFile)).rejects.toThrow(/ENOENT/);
    } finally {
      await gateway.close();
    }
  });
});
