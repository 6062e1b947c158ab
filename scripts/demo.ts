/**
 * `npm run demo`: a control plane and five real droplet agents (simulated A/B devices on the file boot
 * backend) as child processes, with temporary data; prints how to follow them with the CLI. Ctrl-C stops
 * everything and removes the temporary files.
 *
 * `npm run demo -- --sim N`: N devices of the simulated fleet (scripts/sim-fleet) in this process instead of the
 * five droplets, labelled with four sites, and versions 1.1.0 and 1.2.0 published for them.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { OutpostClient } from '@outpost/shared';
import { planFleet } from './sim-fleet/fleet-plan.js';
import { startSimFleet } from './sim-fleet/index.js';
import type { SimFleet } from './sim-fleet/index.js';
import { provisionSimDevices, publishSimulatedVersion } from './sim-fleet/server-setup.js';

const repo = fileURLToPath(new URL('..', import.meta.url));
const serverMain = join(repo, 'control-plane/dist/server/main.js');
const cliMain = join(repo, 'control-plane/dist/cli/main.js');
const dropletMain = join(repo, 'agent/dist/main.js');
const port = Number(process.env['DEMO_PORT'] ?? 8080);
const parent = 'projects/demo/regions/eu-west';
const devices = [
  { id: 'edge-1', wave: 'canary' },
  { id: 'edge-2', wave: 'early' },
  { id: 'edge-3', wave: 'main' },
  { id: 'edge-4', wave: 'main' },
  { id: 'edge-5', wave: 'main' },
];

const simCount = simulatedDeviceCount();
let fleet: SimFleet | undefined;
const children: ChildProcess[] = [];
const work = mkdtempSync(join(tmpdir(), 'outpost-demo-'));
const say = (line: string): void => void process.stdout.write(line + '\n');

function start(script: string, args: string[], env: Record<string, string>, log: string): ChildProcess {
  const child = spawn(process.execPath, [script, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = join(work, log);
  child.stdout?.on('data', (d: Buffer) => writeFileSync(out, d, { flag: 'a' }));
  child.stderr?.on('data', (d: Buffer) => writeFileSync(out, d, { flag: 'a' }));
  children.push(child);
  return child;
}

function cli(args: string[], env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliMain, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`outpost ${args.join(' ')}: ${err.trim()}`)),
    );
  });
}

async function waitForServer(url: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the control plane did not start; see ${join(work, 'server.log')}`);
}

/** --sim N: how many devices of the simulated fleet to run instead of the five droplets (undefined: none). */
function simulatedDeviceCount(): number | undefined {
  const { values } = parseArgs({ options: { sim: { type: 'string' } } });
  if (values.sim === undefined) return undefined;
  if (!/^\d+$/.test(values.sim) || Number(values.sim) < 1) {
    process.stderr.write(`demo: --sim takes a number of devices, not "${values.sim}"\n`);
    process.exit(2);
  }
  return Number(values.sim);
}

/** The simulated fleet of --sim: devices sim-0000 ... labelled site=site-1..4, 1.1.0 and 1.2.0 published. */
async function startSimulatedDevices(count: number, url: string, apiKey: string, client: OutpostClient): Promise<void> {
  const server = { client, serverUrl: url, apiKey };
  for (const version of ['1.1.0', '1.2.0']) await publishSimulatedVersion(server, 'simulated', version);
  const planned = planFleet({
    parent,
    count,
    prefix: 'sim',
    failBoot: 0,
    failHealth: 0,
    offline: 0,
    sites: 4,
    seed: 1,
  });
  say(`provisioning ${count} simulated devices ...`);
  const credentials = await provisionSimDevices(server, planned);
  fleet = await startSimFleet({
    serverUrl: url,
    devices: planned.map((device, i) => ({
      name: device.name,
      credential: credentials[i]!,
      deviceType: 'simulated',
      factoryVersion: '1.0.0',
    })),
  });
}

function stopAll(): void {
  void fleet?.stop();
  for (const child of children) child.kill('SIGTERM');
  setTimeout(() => {
    rmSync(work, { recursive: true, force: true });
    process.exit(0);
  }, 1500);
}

async function main(): Promise<void> {
  for (const file of [serverMain, cliMain, dropletMain]) {
    if (!existsSync(file)) throw new Error(`${file} is missing: run "npm run build" (npm install does it) first`);
  }
  const apiKey = `opk_demo_${randomBytes(24).toString('base64url')}`;
  const url = `http://127.0.0.1:${port}`;
  start(
    serverMain,
    ['--port', String(port), '--data-dir', join(work, 'server')],
    { OUTPOST_ADMIN_KEY: apiKey },
    'server.log',
  );
  await waitForServer(url);
  const env = { OUTPOST_SERVER: url, OUTPOST_API_KEY: apiKey };
  const client = new OutpostClient({ server: url, apiKey });
  if (simCount === undefined) await startDroplets(env, client);
  else await startSimulatedDevices(simCount, url, apiKey, client);
  const what = simCount === undefined ? 'five simulated devices' : `${simCount} devices of the simulated fleet`;

  say(`Outpost demo: control plane on ${url}, ${what} in ${parent} (logs in ${work}).`);
  say('');
  say(`  export OUTPOST_SERVER=${url} OUTPOST_API_KEY=${apiKey}`);
  say(`  alias outpost="node ${cliMain}"`);
  say('');
  say(`  outpost devices list devices --parent projects/demo/regions/-`);
  say(
    `  outpost devices watch devices --parent projects/demo/regions/- --type stateless --field-mask spec.osVersion,status.deviceInfo.osVersion,status.conditions`,
  );
  const canary = simCount === undefined ? 'edge-1' : 'sim-0000';
  say(
    `  outpost devices update devices ${parent}/devices/${canary} --json '{"spec":{"osVersion":"1.1.0"}}' --update-mask spec.osVersion   # the canary`,
  );
  say(`  outpost devices rollout-status --parent projects/demo/regions/- --version 1.1.0`);
  say('');
  say('Ctrl-C stops the demo and removes its files.');
}

/** The five droplets: provisioned on the file boot backend, trusting the demo's signing key, one wave label each. */
async function startDroplets(env: Record<string, string>, client: OutpostClient): Promise<void> {
  // a signing key and a published 1.1.0 image for the simulated device type
  const keys = join(work, 'keys');
  mkdirSync(keys);
  await cli(['os', 'keygen', join(keys, 'demo')], env);
  const image = join(work, 'demo-1.1.0.img');
  writeFileSync(image, randomBytes(8 * 1024 * 1024));
  await cli(
    [
      'os',
      'publish',
      '--device-type',
      'simulated',
      '--version',
      '1.1.0',
      '--image',
      image,
      '--key',
      join(keys, 'demo.key'),
    ],
    env,
  );

  for (const device of devices) {
    const name = `${parent}/devices/${device.id}`;
    const root = join(work, 'devices', device.id);
    await cli(
      [
        'devices',
        'provision',
        name,
        '--device-root',
        root,
        '--boot-backend',
        'file',
        '--factory-version',
        '1.0.0',
        '--device-type',
        'simulated',
      ],
      env,
    );
    mkdirSync(join(root, 'config', 'trust'), { recursive: true });
    copyFileSync(join(keys, 'demo.pub'), join(root, 'config', 'trust', 'demo.pub'));
    await client.update(
      { name, metadata: { labels: { wave: device.wave, [`wave:${device.wave}`]: '' } } },
      { updateMask: 'metadata.labels' },
    );
    start(dropletMain, ['--device-root', root, '--metrics-interval', '10'], {}, `${device.id}.log`);
  }
}

process.once('SIGINT', stopAll);
process.once('SIGTERM', stopAll);
main().catch((err: unknown) => {
  process.stderr.write(`demo failed: ${err instanceof Error ? err.message : String(err)}\n`);
  stopAll();
});
