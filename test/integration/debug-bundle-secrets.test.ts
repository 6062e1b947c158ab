/**
 * Issue 16, the debug bundle: secrets are planted in every source a real droplet's bundle is made of (its
 * credential, its configuration, its spec's proxy, a pod's environment and log, its own log, and the command line
 * of another process on the device), the bundle is collected with `outpost devices collect-debug-bundle`, and no
 * file of the tarball holds any of them.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Device, Pod } from '@outpost/shared';
import { RemoteOpsWorld, online } from './remote-ops-fixture.js';
import { perAttempt } from './helpers/per-attempt.js';
import { waitForDevice } from './helpers/wait-for.js';

const world = new RemoteOpsWorld();
const strangers: ChildProcess[] = [];

const PLANTED = {
  configToken: 'opt_PlantedConfigToken0123456789abcdefghijk',
  proxyPassword: 'Pr0xyPlantedPassw0rd',
  podPassword: 'PodPlantedDbPassw0rd',
  podApiKey: 'PodPlantedApiKeyValue42',
  strangerToken: 'opt_PlantedStrangerToken9876543210zyxwvutsr',
  strangerPassword: 'StrangerPlantedFlagPw',
  loggedKeyBody: 'MC4CAQAwBQYDK2VwBCIEIPlantedPrivateKeyBodyXYZ',
};
let credential: string;

beforeAll(() => world.start(1));
afterAll(async () => {
  for (const process of strangers) process.kill();
  await world.stop();
});

/** A device with secrets in every source of its bundle. */
async function plantSecrets(device: string, pod: string): Promise<void> {
  const root = await world.provision(device);
  credential = readFileSync(join(root, 'config', 'credential'), 'utf8').trim();
  const configFile = join(root, 'config', 'droplet.json');
  const config = JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, unknown>;
  writeFileSync(configFile, JSON.stringify({ ...config, provisioningToken: PLANTED.configToken }));
  world.startAgent(root);
  await waitForDevice(world.server.admin, device, online, 60_000);

  const proxy = `http://proxyuser:${PLANTED.proxyPassword}@proxy.example:3128`;
  await world.server.admin.update<Device>(
    // the link to the control plane on loopback bypasses the proxy (which leads nowhere); pods still get it
    { name: device, spec: { proxyConfig: { httpProxy: proxy, httpsProxy: proxy, noProxy: '127.0.0.1,localhost' } } },
    { updateMask: 'spec.proxyConfig' },
  );
  await world.server.admin.create('projects/secrets/regions/eu', 'pods', {
    name: pod,
    spec: {
      node: device,
      services: [
        {
          name: 'app',
          command: ['sh', '-c', 'echo "connecting with $DB_PASSWORD and $API_KEY"; exec sleep 600'],
          env: [
            { name: 'DB_PASSWORD', value: PLANTED.podPassword },
            { name: 'API_KEY', value: PLANTED.podApiKey },
          ],
        },
      ],
    },
  });
  await expect
    .poll(async () => (await world.server.admin.get<Pod>(pod)).status?.phase, { timeout: 20_000 })
    .toBe('RUNNING');
  // RUNNING once its process started: the line it echoes is waited for in its log (a file named for the service)
  await expect
    .poll(() => logsNamed(root, 'app.log').some((text) => text.includes('connecting with')), { timeout: 20_000 })
    .toBe(true);
  // what else runs on the device: its command line shows in `ps aux`
  for (const flags of [['--provisioning-token', PLANTED.strangerToken], [`--password=${PLANTED.strangerPassword}`]]) {
    // not exec: the shell stays, with its arguments, as the parent of the sleep
    strangers.push(spawn('sh', ['-c', 'sleep 600; exit 0', 'sh', ...flags], { stdio: 'ignore' }));
  }
  // the agent's own log with what a careless line could hold
  appendFileSync(
    join(root, 'droplet.log'),
    [
      `{"level":30,"msg":"connecting","authorization":"Bearer ${credential}"}`,
      `-----BEGIN PRIVATE KEY-----\n${PLANTED.loggedKeyBody}\n-----END PRIVATE KEY-----`,
      `retrying through http://proxyuser:${PLANTED.proxyPassword}@proxy.example:3128`,
      '',
    ].join('\n'),
  );
}

/** The contents of the files named `name` anywhere under `dir`. */
function logsNamed(dir: string, name: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name === name)
    .map((entry) => readFileSync(join(entry.parentPath, entry.name), 'utf8'));
}

/** Every file of the extracted bundle, by its path in the bundle. */
function filesOf(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(path.slice(dir.length + 1), readFileSync(path, 'utf8'));
  }
  return files;
}

describe('the debug bundle of a device holding secrets', () => {
  it('holds none of them, in any file, while showing where they were', async (context) => {
    const device = perAttempt(context, 'projects/secrets/regions/eu/devices/leaky-1');
    const podId = perAttempt(context, 'leaky-app');
    await plantSecrets(device, `projects/secrets/regions/eu/pods/${podId}`);
    const out = world.folder('bundle');
    const file = join(out, 'bundle.tar.gz');
    const result = await world.cli(['devices', 'collect-debug-bundle', device, '--file', file]);
    expect(result.code, result.stderr).toBe(0);
    const extracted = join(out, 'x');
    mkdirSync(extracted);
    execFileSync('tar', ['-xzf', file, '-C', extracted]);
    const files = filesOf(extracted);

    const secrets = { ...PLANTED, credential };
    for (const [path, text] of files) {
      for (const [what, secret] of Object.entries(secrets)) {
        expect(text.includes(secret), `${what} in ${path}`).toBe(false);
      }
    }

    // the sources were there, so the check above could have failed
    const root = `outpost-debug-${device.split('/').at(-1)}`;
    expect(files.get(`${root}/agent/state/desired-device.json`)).toContain('proxyuser:[redacted]@proxy.example');
    expect(files.get(`${root}/config/droplet.json`)).toContain('"provisioningToken": "[redacted]"');
    expect(files.get(`${root}/system/processes.txt`)).toMatch(/--provisioning-token \S*\[redacted\]/);
    expect(files.get(`${root}/system/processes.txt`)).toContain('--password=[redacted]');
    const podLog = [...files].find(([path]) => path.startsWith(`${root}/pods/${podId}/`))?.[1];
    expect(podLog).toContain('connecting with [redacted] and [redacted]');
    const agentLog = files.get(`${root}/agent/droplet.log`);
    expect(agentLog).toContain('"authorization":"[redacted]"');
    expect(agentLog).toContain('-----BEGIN PRIVATE KEY-----\n[redacted]\n-----END PRIVATE KEY-----');
  });
});
