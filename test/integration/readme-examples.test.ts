/**
 * Every example of README.md runs. The test reads README.md when it runs, takes every ```sh block marked
 * `<!-- example: <section> -->` (see helpers/readme-examples.ts) and runs it with bash, block after block in
 * README order, against the built programs (npm run build first):
 *
 * - a control plane (`node control-plane/dist/server/main.js`) on a free port of 127.0.0.1 with a temporary data
 *   folder and OUTPOST_ADMIN_KEY=opk_admin_<random>;
 * - two running droplets, `projects/acme/regions/eu/devices/gw-1` and `gw-2`, provisioned by `outpost devices
 *   provision` on the file boot backend (type qemu-x86_64, factory version 1.0.0) into temporary device roots;
 * - a working folder that stands for the checkout (package.json, node_modules and the packages linked into it, so
 *   `$PWD/control-plane/...` and `npm start` work) holding what a user would have: `app.conf`, `site/`,
 *   `rootfs.img`;
 * - `outpost` and `droplet` on PATH (the built CLI and agent), OUTPOST_SERVER and OUTPOST_API_KEY set, and
 *   OUTPOST_PORT=0 so that `npm start` takes a free port.
 *
 * In each command, `http://127.0.0.1:8080` and `https://outpost.example` become the server's URL, `opk_admin_...`
 * the admin key, and `/outpost` (droplet's default device root) gw-1's device root, or a fresh one in a `droplet`
 * command (each starts a new device). `curl` fails on an HTTP error (--fail-with-body). Servers, agents and
 * watches run bounded (they must print and keep running; then Ctrl-C must end them); `npm install` is not run.
 * A block passes when each of its commands exited 0 (or ran bounded as said); every section below must have at
 * least one command that runs.
 */
import { randomBytes } from 'node:crypto';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutpostClient } from '@outpost/shared';
import type { Device } from '@outpost/shared';
import { commandKind, exampleBlocks, synopsisProblem } from './helpers/readme-examples.js';
import type { ExampleBlock } from './helpers/readme-examples.js';
import { NOT_RUN_PREFIX, STEP_PREFIX, blockScript } from './helpers/readme-shell.js';
import type { ExampleWorld } from './helpers/readme-shell.js';
import { DROPLET, OUTPOST_CLI, REPO, runCli, startProcess } from './helpers/processes.js';
import type { RunningProcess } from './helpers/processes.js';
import { waitForDevice } from './helpers/wait-for.js';

const REQUIRED_SECTIONS = ['quick-start', 'devices', 'upgrades', 'limits', 'remote-operations'] as const;
const DEVICES = ['gw-1', 'gw-2'] as const;
const deviceName = (id: string): string => `projects/acme/regions/eu/devices/${id}`;

const blocks: ExampleBlock[] = exampleBlocks(readFileSync(join(REPO, 'README.md'), 'utf8'));
const curlInstalled = spawnSync('sh', ['-c', 'command -v curl']).status === 0;

/** The commands of a section that the test runs (bounded or to completion). */
const runnable = (section: string) =>
  blocks
    .filter((block) => block.section === section)
    .flatMap((block) => block.commands)
    .filter((command) => commandKind(command, curlInstalled).kind !== 'not-run');

describe('README.md examples', () => {
  it('run every curl example under CI', () => {
    if (process.env['CI'] === 'true')
      expect(curlInstalled, 'curl must be installed under CI (.ci/run does)').toBe(true);
    else if (!curlInstalled) process.stderr.write('README examples: curl is not installed, its examples are not run\n');
  });

  it('are marked in every section the test covers, and hold only concrete commands', () => {
    for (const section of REQUIRED_SECTIONS) {
      expect(runnable(section).length, `commands in <!-- example: ${section} --> blocks`).toBeGreaterThan(0);
    }
    const synopses = blocks.flatMap((block) =>
      block.commands.flatMap((command) => {
        const problem = synopsisProblem(command);
        return problem === undefined ? [] : [`README.md:${command.line} has ${problem}: ${command.text}`];
      }),
    );
    expect(synopses, 'synopsis lines belong in unmarked blocks').toEqual([]);
  });
});

describe.sequential('README.md examples run against a real control plane and droplets', () => {
  let work: string;
  let world: ExampleWorld;
  let env: NodeJS.ProcessEnv;
  const processes: RunningProcess[] = [];

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'outpost-readme-'));
    const adminKey = `opk_admin_${randomBytes(18).toString('base64url')}`;
    const server = startProcess(
      join(REPO, 'control-plane/dist/server/main.js'),
      ['--port', '0', '--data-dir', join(work, 'server'), '--log-level', 'info'],
      { OUTPOST_ADMIN_KEY: adminKey },
    );
    processes.push(server);
    const serverUrl = await listeningUrl(server);

    const user = join(work, 'checkout');
    mkdirSync(user);
    for (const entry of ['package.json', 'node_modules', 'shared', 'agent', 'control-plane']) {
      symlinkSync(join(REPO, entry), join(user, entry));
    }
    writeFileSync(join(user, 'app.conf'), 'listen 8000\n');
    mkdirSync(join(user, 'site/css'), { recursive: true });
    writeFileSync(join(user, 'site/index.html'), '<h1>gw</h1>\n');
    writeFileSync(join(user, 'site/css/site.css'), 'h1 { color: teal }\n');
    writeFileSync(join(user, 'rootfs.img'), randomBytes(1024 * 1024));

    const bin = join(work, 'bin');
    mkdirSync(bin);
    for (const [name, script] of [
      ['outpost', OUTPOST_CLI],
      ['droplet', DROPLET],
    ] as const) {
      writeFileSync(join(bin, name), `#!/bin/sh\nexec "${process.execPath}" "${script}" "$@"\n`, { mode: 0o755 });
    }

    env = { ...process.env };
    for (const key of Object.keys(env)) {
      if (key.startsWith('OUTPOST_') || key.startsWith('DROPLET_')) delete env[key];
    }
    Object.assign(env, {
      PATH: `${bin}:${process.env['PATH'] ?? ''}`,
      OUTPOST_SERVER: serverUrl,
      OUTPOST_API_KEY: adminKey,
      OUTPOST_PORT: '0',
    });

    let fresh = 0;
    world = {
      serverUrl,
      adminKey,
      deviceRoot: join(work, 'devices/gw-1'),
      freshDeviceRoot: () => join(work, `devices/new-${++fresh}`),
      boundedPidsFile: join(work, 'bounded-pids'),
      curlInstalled,
    };
    writeFileSync(world.boundedPidsFile, '');

    const cliEnv = { OUTPOST_SERVER: serverUrl, OUTPOST_API_KEY: adminKey };
    for (const id of DEVICES) {
      const root = join(work, 'devices', id);
      const provisioned = await runCli(
        [
          'devices',
          'provision',
          deviceName(id),
          '--device-root',
          root,
          '--boot-backend',
          'file',
          '--factory-version',
          '1.0.0',
          '--device-type',
          'qemu-x86_64',
        ],
        cliEnv,
      );
      expect(provisioned.code, provisioned.stderr).toBe(0);
      processes.push(startProcess(DROPLET, ['--device-root', root]));
    }
    const client = new OutpostClient({ server: serverUrl, apiKey: adminKey });
    const reported = (d: Device): boolean =>
      d.status?.connectionStatus === 'CONNECTED' && d.status.deviceInfo?.osVersion === '1.0.0';
    await Promise.all(DEVICES.map((id) => waitForDevice(client, deviceName(id), reported)));
  }, 60_000);

  afterAll(async () => {
    for (const pid of readFileSync(world.boundedPidsFile, 'utf8').split('\n').filter(Boolean)) {
      try {
        process.kill(-Number(pid), 'SIGKILL');
      } catch {
        // already ended, as it should have
      }
    }
    await Promise.all(processes.map((p) => p.stop('SIGTERM')));
    rmSync(work, { recursive: true, force: true });
  });

  for (const block of blocks) {
    const runs = block.commands.filter((command) => commandKind(command, curlInstalled).kind !== 'not-run').length;
    it(`${block.section} (README.md:${block.line}, ${block.commands.length} commands)`, async () => {
      const script = join(work, `example-${block.line}.sh`);
      writeFileSync(script, blockScript(block.commands, world));
      const transcript = await runBash(script, join(work, 'checkout'), env);
      const failure = `README.md:${block.line}, ${block.section}:\n${transcript.output}`;
      expect(transcript.code, failure).toBe(0);
      expect(countLines(transcript.output, STEP_PREFIX), failure).toBe(runs);
      expect(countLines(transcript.output, NOT_RUN_PREFIX), failure).toBe(block.commands.length - runs);
    }, 120_000);
  }
});

const countLines = (output: string, prefix: string): number =>
  output.split('\n').filter((line) => line.startsWith(prefix)).length;

/** The URL the server logs once it listens (it was started on port 0). */
async function listeningUrl(server: RunningProcess): Promise<string> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const url = /"url":"(http:\/\/127\.0\.0\.1:\d+)"[^\n]*"msg":"listening"/.exec(server.output())?.[1];
    if (url !== undefined) return url;
    if (server.child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the control plane did not start listening:\n${server.output()}`);
}

/** Runs a bash script file in its own process group; everything it prints, in order. */
function runBash(
  script: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, output }));
  });
}
