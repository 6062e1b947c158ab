/**
 * Issue 23, any replica serves any device command: two real control-plane processes on one PostgreSQL and a
 * real droplet whose link is on replica A. Through replica B: a spec change reaches the agent; a reboot, scp in
 * both directions, a remote command, an interactive terminal, a port forward, a debug bundle, pod commands and a
 * shutdown are each relayed to A (cluster/routing.ts); newest connection wins across replicas; a device no replica
 * holds is UNAVAILABLE through B as on a single server. Skipped without PostgreSQL, except under CI=true.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { spawn as spawnPty } from 'node-pty';
import { AGENT_CONNECT_PATH } from '@outpost/shared';
import type { Device, Pod } from '@outpost/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startPostgresCluster } from '../../control-plane/test/helpers/postgres-cluster.js';
import type { PostgresCluster } from '../../control-plane/test/helpers/postgres-cluster.js';
import { TEST_ADMIN_KEY } from '../../control-plane/test/helpers/test-server.js';
import { clusterTestsSkipped, startReplica } from './helpers/cluster-replicas.js';
import type { Replica } from './helpers/cluster-replicas.js';
import { answerHeartbeats } from '../../control-plane/test/helpers/answer-heartbeats.js';
import { startDroplet } from './helpers/cluster-devices.js';
import { provisionSimulatedDevice } from './helpers/simulated-device.js';
import { perAttempt } from './helpers/per-attempt.js';
import { OUTPOST_CLI, runCli } from './helpers/processes.js';
import type { RunningProcess } from './helpers/processes.js';
import { waitForDevice } from './helpers/wait-for.js';

const skipped = clusterTestsSkipped('cluster routing test');
const PARENT = 'projects/routing/regions/eu';
const DEVICE = `${PARENT}/devices/on-a`;

const online = (d: Device): boolean => d.status?.connectionStatus === 'CONNECTED';

describe.skipIf(skipped)('commands through a replica that does not hold the device link', () => {
  let postgres: PostgresCluster | undefined;
  let a: Replica;
  let b: Replica;
  let work: string;
  let root: string;
  let agent: RunningProcess | undefined;
  const throughB = (args: readonly string[]) =>
    runCli(args, { OUTPOST_SERVER: b.url, OUTPOST_API_KEY: TEST_ADMIN_KEY });

  beforeAll(async () => {
    postgres = await startPostgresCluster({ durable: false });
    const database = postgres.createDatabase();
    a = await startReplica(database, ['--heartbeat-seconds', '2']);
    b = await startReplica(database, ['--heartbeat-seconds', '2']);
    work = mkdtempSync(join(tmpdir(), 'outpost-routing-'));
    root = join(work, 'device');
    await provisionSimulatedDevice(a.admin, DEVICE, root, a.url);
    agent = startDroplet(root);
    try {
      await waitForDevice(b.admin, DEVICE, (d) => online(d) && d.status?.agent?.bootId !== undefined, 60_000);
    } catch (err) {
      const logs = `replica A:\n${a.process.output()}\nreplica B:\n${b.process.output()}\nagent:\n${agent.output()}`;
      throw new Error(`${err instanceof Error ? err.message : String(err)}\n${logs}`);
    }
  }, 180_000);

  afterAll(async () => {
    await agent?.stop('SIGKILL');
    await Promise.all([a?.stop(), b?.stop()]);
    postgres?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('a spec change made through B reaches the agent linked to A', async () => {
    await b.admin.update({ name: DEVICE, spec: { location: { address: 'dock 7' } } }, { updateMask: 'spec.location' });
    const desired = join(root, 'data', 'desired-device.json');
    await until(() => {
      try {
        return readFileSync(desired, 'utf8').includes('dock 7');
      } catch {
        return false;
      }
    }, 'the spec on the device');
  }, 120_000);

  it('reboots the device through B', async () => {
    const before = (await b.admin.get<Device>(DEVICE)).status?.agent?.bootId;
    const result = await throughB(['devices', 'reboot', DEVICE, '--force']);
    expect(result.code, result.stderr).toBe(0);
    await waitForDevice(b.admin, DEVICE, (d) => online(d) && d.status?.agent?.bootId !== before, 60_000);
  }, 120_000);

  it('copies a file up and down through B (3 MiB: many credit windows relayed)', async () => {
    const up = join(work, 'up.bin');
    const onDevice = join(work, 'on-device.bin');
    const down = join(work, 'down.bin');
    const content = randomBytes(3 * 1024 * 1024);
    writeFileSync(up, content);
    const upload = await throughB(['devices', 'scp', up, `${DEVICE}:${onDevice}`]);
    expect(upload.code, upload.stderr).toBe(0);
    expect(readFileSync(onDevice).equals(content)).toBe(true);
    const download = await throughB(['devices', 'scp', `${DEVICE}:${onDevice}`, down]);
    expect(download.code, download.stderr).toBe(0);
    expect(readFileSync(down).equals(content)).toBe(true);
  }, 120_000);

  it('runs a remote command and forwards a port through B', async () => {
    const command = await throughB(['devices', 'ssh', DEVICE, '--', 'sh', '-c', 'echo relayed; exit 7']);
    expect(command.code).toBe(7);
    expect(command.stdout).toBe('relayed\n');

    const web = createServer((req, res) => res.end(`body of ${req.url}`));
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    const forward = spawn(
      process.execPath,
      [OUTPOST_CLI, 'devices', 'port-forward', DEVICE, `0:127.0.0.1:${(web.address() as AddressInfo).port}`],
      { env: { ...process.env, OUTPOST_SERVER: b.url, OUTPOST_API_KEY: TEST_ADMIN_KEY }, stdio: 'pipe' },
    );
    try {
      let stdout = '';
      forward.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      await until(() => /Forwarding from 127\.0\.0\.1:\d+/.test(stdout), 'the forward to listen');
      const local = /Forwarding from 127\.0\.0\.1:(\d+)/.exec(stdout)![1];
      const bodies = await Promise.all(
        [1, 2, 3].map((i) =>
          fetch(`http://127.0.0.1:${local}/item-${i}`, { headers: { connection: 'close' } }).then((r) => r.text()),
        ),
      );
      expect(bodies).toEqual(['body of /item-1', 'body of /item-2', 'body of /item-3']);
    } finally {
      forward.kill('SIGKILL');
      web.close();
    }
  }, 120_000);

  it('opens an interactive terminal through B: a pseudo-terminal on the device, resize, exit status', async () => {
    const pty = spawnPty(process.execPath, [OUTPOST_CLI, 'devices', 'ssh', DEVICE], {
      cols: 80,
      rows: 24,
      env: { ...process.env, OUTPOST_SERVER: b.url, OUTPOST_API_KEY: TEST_ADMIN_KEY, TERM: 'xterm' },
    });
    let screen = '';
    pty.onData((data) => (screen += data));
    const exited = new Promise<number>((resolve) => pty.onExit(({ exitCode }) => resolve(exitCode)));
    const typed = async (line: string, answer: RegExp): Promise<void> => {
      const from = screen.length;
      pty.write(line);
      await until(() => answer.test(screen.slice(from)), `${JSON.stringify(line)} to show ${answer}`);
    };
    try {
      await typed('tty\r', /\/dev\/pts\/\d+/);
      await typed('stty size\r', /24 80/);
      pty.resize(100, 30);
      // the resize reaches the device through A a moment later: ask until it shows
      for (let seen = false; !seen;) {
        const from = screen.length;
        await typed('stty size\r', /\d+ \d+\r*\n/);
        seen = /30 100/.test(screen.slice(from));
      }
      pty.write('exit 3\r');
      expect(await exited).toBe(3);
    } finally {
      pty.kill();
    }
  }, 120_000);

  it('collects a debug bundle through B (a tar.gz from the device)', async () => {
    const res = await fetch(`${b.url}/v1/${DEVICE}:collectDebugBundle`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_ADMIN_KEY}` },
    });
    expect(res.status).toBe(200);
    const bundle = Buffer.from(await res.arrayBuffer());
    expect(bundle.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b])); // gzip
  }, 180_000);

  it('stops, starts and restarts a pod and one of its services through B', async (context) => {
    const pod = perAttempt(context, `${PARENT}/pods/shop`);
    const services = [
      { name: 'api', command: ['sleep', '600'] },
      { name: 'worker', command: ['sleep', '600'] },
    ];
    await b.admin.create(PARENT, 'pods', { name: pod, spec: { node: DEVICE, services } });
    const podIn = async (phase: string): Promise<Pod> => {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const now = await b.admin.get<Pod>(pod);
        if (now.status?.phase === phase) return now;
        if (Date.now() > deadline) throw new Error(`pod not ${phase}: ${JSON.stringify(now.status)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    await podIn('RUNNING');
    const stopped = await throughB(['applications', 'stop', pod]);
    expect(stopped.code, stopped.stderr).toBe(0);
    await podIn('STOPPED');
    const started = await throughB(['applications', 'start', pod]);
    expect(started.code, started.stderr).toBe(0);
    const running = await podIn('RUNNING');
    const apiPid = running.status?.serviceStatuses?.find((s) => s.name === 'api')?.pid;
    const restarted = await throughB(['applications', 'pods', 'restart', pod, 'api', '-o', 'json']);
    expect(restarted.code, restarted.stderr).toBe(0);
    const api = (JSON.parse(restarted.stdout) as Pod).status?.serviceStatuses?.find((s) => s.name === 'api');
    expect(api).toMatchObject({ state: 'RUNNING', restartCount: 1 });
    expect(api?.pid).not.toBe(apiPid);
  }, 180_000);

  it('newest connection wins: a link to B drops the one on A, and the agent coming back to A drops it', async () => {
    const credential = readFileSync(join(root, 'config', 'credential'), 'utf8').trim();
    const newer = new WebSocket(`${b.url.replace(/^http/, 'ws')}${AGENT_CONNECT_PATH}`, {
      headers: { authorization: `Bearer ${credential}` },
    });
    // until the droplet takes the device back (its reconnect may take seconds on a loaded machine), B's heartbeats
    // (2 s) must not cut this link first
    answerHeartbeats(newer);
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      newer.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
    const welcomed = new Promise<void>((resolve) =>
      newer.on('message', (data: Buffer) => {
        if ((JSON.parse(data.toString()) as { type: string }).type === 'welcome') resolve();
      }),
    );
    await welcomed;
    // A dropped the droplet's link; the droplet connects to A again, which takes the device back from B
    expect(await closed).toEqual({ code: 4001, reason: 'replaced by a newer connection on another replica' });
    // A logged the drop before the droplet came back, but its output reaches this process on a pipe of its own
    await until(
      () => /agent link dropped: replaced by a newer connection on another replica/.test(a.process.output()),
      "A's log of the dropped link",
    );
    await waitForDevice(b.admin, DEVICE, online, 60_000);
  }, 120_000);

  it('a device no replica holds is UNAVAILABLE through B', async (context) => {
    const name = perAttempt(context, `${PARENT}/devices/never-connected`);
    await a.admin.create(PARENT, 'devices', { name });
    const result = await throughB(['devices', 'reboot', name, '--force']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/UNAVAILABLE: cannot reboot: device ".*" is offline/);
  }, 120_000);

  // last: the device stays off
  it('shuts the device down through B: the agent ends and the device goes Offline', async () => {
    const result = await throughB(['devices', 'shutdown', DEVICE, '--force', '-o', 'json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ name: DEVICE, action: 'SHUTDOWN' });
    expect(await agent!.exited).toEqual({ code: 0, signal: null });
    await waitForDevice(b.admin, DEVICE, (d) => d.status?.connectionStatus === 'DISCONNECTED', 60_000);
  }, 120_000);
});

/** Polls `check` until it holds (a loaded machine may take long: no fixed waits). */
async function until(check: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
