/**
 * `npm run demo`: a control plane and five real droplet agents (simulated A/B devices on the file boot
 * backend) as child processes, with temporary data; prints how to follow them with the CLI. Ctrl-C stops
 * everything and removes the temporary files.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OutpostClient } from '@outpost/shared';

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

function stopAll(): void {
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

  say(`Outpost demo: control plane on ${url}, five simulated devices in ${parent} (logs in ${work}).`);
  say('');
  say(`  export OUTPOST_SERVER=${url} OUTPOST_API_KEY=${apiKey}`);
  say(`  alias outpost="node ${cliMain}"`);
  say('');
  say(`  outpost devices list devices --parent projects/demo/regions/-`);
  say(
    `  outpost devices watch devices --parent projects/demo/regions/- --type stateless --field-mask spec.osVersion,status.deviceInfo.osVersion,status.conditions`,
  );
  say(
    `  outpost devices update devices ${parent}/devices/edge-1 --json '{"spec":{"osVersion":"1.1.0"}}' --update-mask spec.osVersion   # the canary`,
  );
  say(`  outpost devices rollout-status --parent projects/demo/regions/- --version 1.1.0`);
  say('');
  say('Ctrl-C stops the demo and removes its files.');
}

process.once('SIGINT', stopAll);
process.once('SIGTERM', stopAll);
main().catch((err: unknown) => {
  process.stderr.write(`demo failed: ${err instanceof Error ? err.message : String(err)}\n`);
  stopAll();
});
