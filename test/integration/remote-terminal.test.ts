/**
 * Issue 21 with a real control plane, a real droplet and the real `outpost` command line: `devices ssh` (a command
 * and its exit status, piped input, an interactive shell on a client-side pseudo-terminal: resize, Ctrl-C, Ctrl-D)
 * and `devices port-forward`, each a channel over the device's own connection, each leaving an audit record.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import { connect, createServer as createNetServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { spawn as spawnPty } from 'node-pty';
import { TERMINAL_RECORD } from '@outpost/shared';
import type { RemoteSession } from '@outpost/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { openRemoteSocket } from '../../control-plane/src/remote/remote-access-client.js';
import { TEST_ADMIN_KEY } from '../../control-plane/test/helpers/test-server.js';
import { inForeground, processesRunning } from './helpers/device-processes.js';
import { CLI_FROM_SOURCES, REPO, RemoteOpsWorld } from './remote-ops-fixture.js';
import type { CliResult } from './remote-ops-fixture.js';

const PROJECT = 'projects/term';
const DEVICE = `${PROJECT}/regions/eu/devices/term-box`;
const OFFLINE = `${PROJECT}/regions/eu/devices/term-offline`;
const world = new RemoteOpsWorld();

beforeAll(async () => {
  // sessions live on the device's link: heartbeats of 5 s, so that a stall of a loaded machine does not cut it
  await world.start(5);
  await world.onlineDevice(DEVICE);
  await world.server.admin.create(`${PROJECT}/regions/eu`, 'devices', { name: OFFLINE });
}, 60_000);
afterAll(() => world.stop());

const cliEnv = (apiKey = TEST_ADMIN_KEY): Record<string, string> => world.cliProcessEnv(apiKey);

/** `outpost <args>` with `input` on its stdin (a pipe, not a terminal). */
async function cliWithInput(args: readonly string[], input: string, apiKey?: string): Promise<CliResult> {
  const child = spawn(process.execPath, [...CLI_FROM_SOURCES, ...args], {
    cwd: REPO,
    env: cliEnv(apiKey),
    stdio: 'pipe',
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin.end(input);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, stdout, stderr };
}

/** Polls `check` until it holds (a loaded machine may take long: no fixed waits). */
async function until(
  check: () => boolean | Promise<boolean>,
  what: string | (() => string),
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function sessions(): Promise<RemoteSession[]> {
  const page = await world.server.admin.list<RemoteSession>(DEVICE, 'remoteSessions', { pageSize: 1000 });
  return (page as { remoteSessions?: RemoteSession[] }).remoteSessions ?? [];
}

async function endedSession(match: (s: RemoteSession) => boolean): Promise<RemoteSession> {
  let found: RemoteSession | undefined;
  await until(async () => {
    found = (await sessions()).find((s) => match(s) && s.state === 'ENDED');
    return found !== undefined;
  }, 'the audit record');
  return found!;
}

async function keyWith(permission: string): Promise<string> {
  const created = await world.server.admin.request<{ secret: string }>('POST', '/v1/apiKeys', {
    body: { displayName: 'operator', grants: [{ permission, scope: PROJECT }] },
  });
  return created.secret;
}

describe('outpost devices ssh', () => {
  it("a command's exit status becomes the CLI's, its stdout and stderr stay apart, and it is audited", async () => {
    const result = await cliWithInput(
      ['devices', 'ssh', DEVICE, '--', 'sh', '-c', 'echo out; echo err >&2; exit 7'],
      '',
    );
    expect(result.code, result.stderr).toBe(7);
    expect(result.stdout).toBe('out\n');
    expect(result.stderr).toBe('err\n');
    const record = await endedSession((s) => s.command === 'sh -c echo out; echo err >&2; exit 7');
    expect(record).toMatchObject({
      kind: 'TERMINAL',
      device: DEVICE,
      keyId: expect.stringMatching(/^apiKeys\//),
      exitCode: 7,
      ending: 'EXITED',
      bytesIn: 0,
      bytesOut: 8,
    });
    expect(record.durationSeconds).toBeGreaterThanOrEqual(0);
    expect(record.transcript).toBeUndefined(); // off unless the device's spec asks
    expect(Date.parse(record.endTime!)).toBeGreaterThanOrEqual(Date.parse(record.startTime!));
  }, 60_000);

  it("`-- sh -c 'exit 7'` exits 7", async () => {
    const result = await cliWithInput(['devices', 'ssh', DEVICE, '--', 'sh', '-c', 'exit 7'], '');
    expect(result.code, result.stderr).toBe(7);
  }, 60_000);

  it('without a terminal the input is piped to the command, and its end ends the input', async () => {
    const result = await cliWithInput(['devices', 'ssh', DEVICE, '--', 'tr', 'a-z', 'A-Z'], 'hello\n');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('HELLO\n');
    const record = await endedSession((s) => s.command === 'tr a-z A-Z');
    expect(record).toMatchObject({ bytesIn: 6, bytesOut: 6, exitCode: 0, ending: 'EXITED' });
    const listed = await world.cli(['devices', 'list', 'remoteSessions', '--parent', DEVICE, '-o', 'json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as { remoteSessions: RemoteSession[] }).remoteSessions).toContainEqual(
      expect.objectContaining({ name: record.name, command: 'tr a-z A-Z', bytesIn: 6 }),
    );
  }, 60_000);

  it('an interactive shell on a pseudo-terminal: commands, resize, Ctrl-C, Ctrl-D', async () => {
    const pty = spawnPty(process.execPath, [...CLI_FROM_SOURCES, 'devices', 'ssh', DEVICE], {
      cols: 80,
      rows: 24,
      cwd: REPO,
      env: { ...cliEnv(), TERM: 'xterm' },
    });
    let screen = '';
    pty.onData((d) => (screen += d));
    const exited = new Promise<number>((resolve) => pty.onExit(({ exitCode }) => resolve(exitCode)));
    const typed = async (line: string, answer: RegExp): Promise<void> => {
      const from = screen.length;
      pty.write(line);
      await until(
        () => answer.test(screen.slice(from)),
        () => `${JSON.stringify(line)} to show ${answer}; screen: ${JSON.stringify(screen.slice(-600))}`,
      );
    };
    try {
      // a prompt of its own (its typed line shows the unexpanded $((40+2))): readline has the terminal once it shows
      await typed("PS1='pty-shell-$((40+2))> '; echo mark-$((6*7))\r", /mark-42/);
      await typed('stty size\r', /24 80/);
      pty.resize(100, 30);
      await until(async () => {
        const from = screen.length;
        pty.write('stty size\r');
        await until(
          () => /\d+ \d+\r*\n/.test(screen.slice(from)),
          () => `stty size to answer; screen: ${JSON.stringify(screen.slice(-600))}`,
        );
        return /30 100/.test(screen.slice(from));
      }, 'the resize to reach the device');
      pty.write('sleep 101\r');
      await until(() => processesRunning(['sleep', '101']).length > 0, 'sleep 101 to run on the device');
      // Ctrl-C signals the terminal's foreground group: typed before the shell handed the terminal to sleep, it
      // would reach the shell alone and sleep would run on
      await until(() => inForeground(['sleep', '101']), 'sleep 101 to have the terminal');
      pty.write('\x03');
      await until(() => processesRunning(['sleep', '101']).length === 0, 'Ctrl-C to interrupt sleep 101');
      // Ctrl-D only once the shell reads its next line: typed while a command still runs, the device's terminal is
      // in canonical mode, where it is an end of file that readline then reads as a NUL, and the shell never ends
      // (lines end in \r\r\n here: the local terminal adds its own \r to the device's \r\n)
      await typed('echo back-$((1+1))\r', /back-2\r*\n[^]*pty-shell-42> $/);
      pty.write('\x04');
      expect(await exited).toBe(0);
    } finally {
      pty.kill();
    }
    const record = await endedSession((s) => s.command === 'interactive');
    expect(record.ending).toBe('EXITED');
    expect(record.bytesIn).toBeGreaterThan(20);
    expect(record.bytesOut).toBeGreaterThan(20);
  }, 90_000);

  it('a large output arrives whole (through the credit window)', async () => {
    const child = spawn(
      process.execPath,
      [...CLI_FROM_SOURCES, 'devices', 'ssh', DEVICE, '--', 'head', '-c', '20000000', '/dev/zero'],
      {
        cwd: REPO,
        env: cliEnv(),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let bytes = 0;
    child.stdout.on('data', (d: Buffer) => (bytes += d.length));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(0);
    expect(bytes).toBe(20_000_000);
    const record = await endedSession((s) => s.command === 'head -c 20000000 /dev/zero');
    expect(record.bytesOut).toBe(20_000_000);
  }, 90_000);

  it("a browser's way in: the key in a subprotocol, records as messages, the exit status last", async () => {
    const url = `${world.server.url.replace(/^http/, 'ws')}/v1/${DEVICE}:terminal?command=sh&command=-c&command=${encodeURIComponent('echo hi; exit 3')}`;
    const ws = new WebSocket(url, ['outpost.v1', `bearer.${TEST_ADMIN_KEY}`]);
    const records: { type: number; text: string }[] = [];
    ws.on('message', (data: Buffer) => records.push({ type: data[0]!, text: data.subarray(1).toString() }));
    await new Promise((resolve) => ws.once('open', resolve));
    expect(ws.protocol).toBe('outpost.v1');
    const [code] = await new Promise<[number]>((resolve) =>
      ws.once('close', (closeCode: number) => resolve([closeCode])),
    );
    expect(code).toBe(1000);
    expect(records).toEqual([
      { type: TERMINAL_RECORD.OUTPUT, text: 'hi\n' },
      { type: TERMINAL_RECORD.EXIT, text: '{"exitCode":3}' },
    ]);
  }, 60_000);

  it('-t gives a command a pseudo-terminal even without a local one', async () => {
    const result = await cliWithInput(['devices', 'ssh', '-t', DEVICE, '--', 'stty', 'size'], '');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('24 80\r\n');
  }, 60_000);

  it('a key without projects.connect gets PERMISSION_DENIED; an offline device UNAVAILABLE', async () => {
    const without = await keyWith('services/devices.outpost/permissions/*');
    const denied = await cliWithInput(['devices', 'ssh', DEVICE, '--', 'true'], '', without);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toMatch(
      /PERMISSION_DENIED: missing permission services\/proxies\.outpost\/permissions\/projects\.connect on projects\/term/,
    );
    const connect = await keyWith('services/proxies.outpost/permissions/projects.connect');
    expect((await cliWithInput(['devices', 'ssh', DEVICE, '--', 'true'], '', connect)).code).toBe(0);
    const gone = await cliWithInput(['devices', 'ssh', OFFLINE, '--', 'true'], '');
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/UNAVAILABLE: .*offline/);
  }, 60_000);

  it("a revoked key's open session ends at once, and its command with it", async () => {
    const created = await world.server.admin.request<{ apiKey: { name: string }; secret: string }>(
      'POST',
      '/v1/apiKeys',
      {
        body: {
          displayName: 'revoked while connected',
          grants: [{ permission: 'services/proxies.outpost/permissions/projects.connect', scope: PROJECT }],
        },
      },
    );
    const command = ['sleep', '117'];
    const url = `${world.server.url.replace(/^http/, 'ws')}/v1/${DEVICE}:terminal?${command.map((c) => `command=${c}`).join('&')}`;
    const ws = new WebSocket(url, ['outpost.v1', `bearer.${created.secret}`]);
    const closed = new Promise<[number, string]>((resolve) =>
      ws.once('close', (code: number, reason: Buffer) => resolve([code, reason.toString()])),
    );
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    await until(() => processesRunning(command).length > 0, 'sleep 117 on the device');
    await world.server.admin.request('DELETE', `/v1/${created.apiKey.name}`);
    const [code, reason] = await closed;
    expect(code).toBe(4000);
    expect(reason).toBe(`UNAUTHENTICATED: ${created.apiKey.name} was revoked`);
    const record = await endedSession((s) => s.command === 'sleep 117');
    expect(record).toMatchObject({ keyId: created.apiKey.name, ending: 'FAILED' });
    await until(() => processesRunning(command).length === 0, 'sleep 117 to end on the device');
  }, 60_000);

  it('wrong keys count against the same budget as the REST API: RESOURCE_EXHAUSTED once spent', async () => {
    const attempt = (apiKey: string): Promise<unknown> =>
      openRemoteSocket({ server: world.server.url, apiKey }, DEVICE, 'terminal', new URLSearchParams()).then(
        (ws) => ws.terminate(),
        (err: unknown) => err,
      );
    const refusals: unknown[] = [];
    for (let i = 0; i < 25; i++) refusals.push(await attempt('not-a-key'));
    expect(refusals[0]).toMatchObject({ status: 'UNAUTHENTICATED' });
    expect(refusals.at(-1)).toMatchObject({ status: 'RESOURCE_EXHAUSTED' });
    expect(await attempt(TEST_ADMIN_KEY)).toBeUndefined(); // a valid key is always let in
  }, 60_000);

  it('a device whose spec disables the terminal refuses it', async () => {
    await world.server.admin.update(
      { name: OFFLINE, spec: { remoteAccess: { disableTerminal: true } } },
      { updateMask: 'spec.remoteAccess' },
    );
    const refused = await cliWithInput(['devices', 'ssh', OFFLINE, '--', 'true'], '');
    expect(refused.stderr).toMatch(/FAILED_PRECONDITION: .*disableTerminal/);
  }, 60_000);
});

describe('transcripts', () => {
  it("a device whose spec asks for transcripts gets each terminal session's output recorded", async () => {
    await world.server.admin.update(
      { name: DEVICE, spec: { remoteAccess: { recordTranscripts: true } } },
      { updateMask: 'spec.remoteAccess' },
    );
    const result = await cliWithInput(['devices', 'ssh', DEVICE, '--', 'sh', '-c', 'echo kept-$((40+2))'], '');
    expect(result.code, result.stderr).toBe(0);
    const record = await endedSession((s) => s.command === 'sh -c echo kept-$((40+2))');
    expect(record.transcript).toBe('kept-42\n');
    expect(record.transcriptTruncated).toBeUndefined();
  }, 60_000);
});

describe('outpost devices port-forward', () => {
  let forward: ChildProcess | undefined;
  afterAll(() => forward?.kill('SIGKILL'));

  it("forwards 20 concurrent HTTP requests to a server reached from the device, only to the device's targets", async () => {
    const web = createServer((req, res) => res.end(`body of ${req.url}`));
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    const webPort = (web.address() as AddressInfo).port;
    try {
      forward = spawn(
        process.execPath,
        [...CLI_FROM_SOURCES, 'devices', 'port-forward', DEVICE, `0:127.0.0.1:${webPort}`],
        {
          cwd: REPO,
          env: cliEnv(),
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stdout = '';
      let stderr = '';
      forward.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
      forward.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
      await until(() => /Forwarding from 127\.0\.0\.1:\d+/.test(stdout), `the forward to listen; ${stderr}`);
      const local = /Forwarding from 127\.0\.0\.1:(\d+)/.exec(stdout)![1];
      const bodies = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          fetch(`http://127.0.0.1:${local}/item-${i}`, { headers: { connection: 'close' } }).then((r) => r.text()),
        ),
      );
      expect(bodies).toEqual(Array.from({ length: 20 }, (_, i) => `body of /item-${i}`));
      // a client that ends its side still reads the answer (a half close goes through)
      const counter = createNetServer({ allowHalfOpen: true }, (socket) => {
        let got = 0;
        socket.on('data', (chunk: Buffer) => (got += chunk.length));
        socket.on('end', () => socket.end(`counted ${got}`));
      });
      await new Promise<void>((resolve) => counter.listen(0, '127.0.0.1', resolve));
      const halfClose = spawn(
        process.execPath,
        [
          ...CLI_FROM_SOURCES,
          'devices',
          'port-forward',
          DEVICE,
          `0:127.0.0.1:${(counter.address() as AddressInfo).port}`,
        ],
        { cwd: REPO, env: cliEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let halfOut = '';
      halfClose.stdout.on('data', (d: Buffer) => (halfOut += d.toString()));
      await until(() => /Forwarding from 127\.0\.0\.1:\d+/.test(halfOut), 'the second forward to listen');
      const client = connect(Number(/Forwarding from 127\.0\.0\.1:(\d+)/.exec(halfOut)![1]), '127.0.0.1');
      client.end('twelve bytes');
      let answer = '';
      for await (const chunk of client) answer += (chunk as Buffer).toString();
      expect(answer).toBe('counted 12');
      halfClose.kill('SIGINT');
      counter.close();

      const exited = new Promise<number | null>((resolve) => forward!.once('exit', resolve));
      forward.kill('SIGINT');
      expect(await exited).toBe(0);
      const record = await endedSession((s) => s.kind === 'PORT_FORWARD' && s.target === `127.0.0.1:${webPort}`);
      expect(record.bytesIn).toBeGreaterThan(0);
      expect(record.bytesOut).toBeGreaterThan('body of /item-0'.length);

      const other = await openRemoteSocket(
        { server: world.server.url, apiKey: TEST_ADMIN_KEY },
        DEVICE,
        'portForward',
        new URLSearchParams({ host: '10.9.8.7', port: '80' }),
      ).catch((err: unknown) => err);
      expect(other).toMatchObject({ status: 'PERMISSION_DENIED', message: expect.stringMatching(/forwardTargets/) });
    } finally {
      web.close();
    }
  }, 90_000);
});
