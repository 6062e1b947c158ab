/**
 * Issue 21, beyond remote-terminal.test.ts, with a real control plane, a real droplet and the real `outpost` command
 * line: job control in an interactive shell (Ctrl-Z, jobs, fg, Ctrl-C), a shell run as the device's configured
 * shellUser (a throwaway user: needs root), and megabytes through concurrent port-forward connections arriving intact.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { spawn as spawnPty } from 'node-pty';
import type { RemoteSession } from '@outpost/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRemoteSocket } from '../../control-plane/src/remote/remote-access-client.js';
import { TEST_ADMIN_KEY } from '../../control-plane/test/helpers/test-server.js';
import { inForeground, ofProcessesRunning, statFields } from './helpers/device-processes.js';
import { CLI_FROM_SOURCES, REPO, RemoteOpsWorld } from './remote-ops-fixture.js';

const DEVICE = 'projects/term2/regions/eu/devices/jobs-box';
const world = new RemoteOpsWorld();

beforeAll(async () => {
  // a session lives on the device's link: with heartbeats of 1 s, a stall of 2 s on a loaded machine cuts the link and
  // the shell of the job-control test dies with it; nothing here needs a quick Offline
  await world.start(5);
  await world.onlineDevice(DEVICE);
}, 60_000);
afterAll(() => world.stop());

const cliEnv = (): Record<string, string> => world.cliProcessEnv();

/** Polls `check` until it holds (a loaded machine may take long: no fixed waits). */
async function until(
  check: () => boolean | Promise<boolean>,
  what: string | (() => string),
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The state letters (R, S, T, ...) of the processes running exactly `argv`. */
const statesOf = (argv: readonly string[]): string[] => ofProcessesRunning(argv, (pid) => statFields(pid)[0] ?? '');

/** Bytes written so far (/proc/PID/io wchar) by the process running exactly `argv`. */
function writtenBy(argv: readonly string[]): number[] {
  const wchar = (pid: string): number => Number(/^wchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1]);
  return ofProcessesRunning(argv, wchar).slice(0, 1);
}

describe('an interactive session', () => {
  it('has job control: Ctrl-Z stops a command, jobs lists it, fg resumes it, Ctrl-C ends it', async () => {
    const pty = spawnPty(process.execPath, [...CLI_FROM_SOURCES, 'devices', 'ssh', DEVICE], {
      cols: 80,
      rows: 24,
      cwd: REPO,
      env: { ...cliEnv(), TERM: 'xterm' },
    });
    let screen = '';
    pty.onData((d) => (screen += d));
    const exited = new Promise<number>((resolve) => pty.onExit(({ exitCode }) => resolve(exitCode)));
    const shows = (answer: RegExp, from: number) => () => answer.test(screen.slice(from)) || false;
    const typed = async (line: string, answer: RegExp): Promise<void> => {
      const from = screen.length;
      pty.write(line);
      await until(
        shows(answer, from),
        () => `${JSON.stringify(line)} to show ${answer}; screen: ${JSON.stringify(screen.slice(-600))}`,
      );
    };
    // a duration of its own: no other process on the machine runs exactly this
    const sleeper = ['sleep', `104.${randomBytes(3).readUIntBE(0, 3)}`];
    const sleeperShown = new RegExp(`sleep ${sleeper[1]!.replace('.', '\\.')}`);
    // a prompt of its own (its typed line shows the unexpanded $((40+2))): readline has the terminal once it shows
    const PROMPT = /job-shell-42> $/;
    try {
      await typed("PS1='job-shell-$((40+2))> '; echo ready-$((6*7))\r", /ready-42/);
      pty.write(`${sleeper.join(' ')}\r`);
      await until(
        () => statesOf(sleeper).length === 1,
        () => `sleep 104 to run; screen: ${JSON.stringify(screen.slice(-600))}`,
      );
      expect(statesOf(sleeper)[0]).not.toBe('T');
      await until(
        () => inForeground(sleeper),
        () => `sleep 104 to have the terminal; screen: ${JSON.stringify(screen.slice(-600))}`,
      );

      const beforeStop = screen.length;
      pty.write('\x1a'); // Ctrl-Z
      await until(
        () => statesOf(sleeper)[0] === 'T',
        () => `Ctrl-Z to stop sleep 104: ${statesOf(sleeper).join()}; screen: ${JSON.stringify(screen.slice(-600))}`,
      );
      await until(
        shows(new RegExp(`Stopped\\s+${sleeperShown.source}`), beforeStop),
        () => `the shell to report the stop: ${screen.slice(-300)}`,
      );
      await typed('jobs\r', new RegExp(`\\[1\\][+ ]*Stopped\\s+${sleeperShown.source}`));

      const beforeFg = screen.length;
      pty.write('fg\r');
      await until(
        () => ['R', 'S'].includes(statesOf(sleeper)[0] ?? ''),
        () => `fg to resume sleep 104: ${statesOf(sleeper).join()}; screen: ${JSON.stringify(screen.slice(-600))}`,
      );
      await until(
        shows(sleeperShown, beforeFg),
        () => `fg to name the job; screen: ${JSON.stringify(screen.slice(-600))}`,
      );
      await until(
        () => inForeground(sleeper),
        () => `fg to give sleep 104 the terminal; screen: ${JSON.stringify(screen.slice(-600))}`,
      );

      pty.write('\x03'); // Ctrl-C
      await until(
        () => statesOf(sleeper).length === 0,
        () => `Ctrl-C to end sleep 104: ${statesOf(sleeper).join()}; screen: ${JSON.stringify(screen.slice(-600))}`,
      );
      // Ctrl-D only once the shell reads its next line: typed while a command still runs, the device's terminal is
      // in canonical mode, where it is an end of file that readline then reads as a NUL (set-mark), not as Ctrl-D.
      // (Lines end in \r\r\n here: the local terminal adds its own \r to the device's \r\n.)
      await typed('jobs; echo after-$((2+3))\r', new RegExp(`after-5\\r*\\n[^]*${PROMPT.source}`));
      pty.write('\x04');
      let code: number | undefined;
      void exited.then((c) => (code = c));
      await until(
        () => code !== undefined,
        () => `Ctrl-D to end the session; screen: ${JSON.stringify(screen.slice(-600))}`,
      );
      expect(code).toBe(0);
    } finally {
      pty.kill();
    }
  }, 240_000);
});

describe('a client that stops reading', () => {
  it('and goes away ends its session, though the output waiting for it had filled its connection', async () => {
    // a byte count of its own: no other process on the machine runs exactly this
    const command = ['head', '-c', String(200_000_000 + randomBytes(3).readUIntBE(0, 3)), '/dev/zero'];
    const ws = await openRemoteSocket(
      { server: world.server.url, apiKey: TEST_ADMIN_KEY },
      DEVICE,
      'terminal',
      new URLSearchParams(command.map((arg): [string, string] => ['command', arg])),
    );
    // paused and never resumed: the server's socket to it fills, its relay waits
    const sessions = async (): Promise<RemoteSession[]> => {
      const page = await world.server.admin.list<RemoteSession>(DEVICE, 'remoteSessions', { pageSize: 1000 });
      return (page as { remoteSessions?: RemoteSession[] }).remoteSessions ?? [];
    };
    await until(() => statesOf(command).length === 1, 'the command to run on the device');
    // the command blocks on its output once the channel's window and the connection to the client are full: what it
    // wrote stops growing
    let written: number[] = [];
    await until(
      () => {
        written = [...written.slice(-9), ...writtenBy(command)];
        return written.length === 10 && written[0]! > 8_000_000 && written.every((n) => n === written[0]);
      },
      () => `the output to back up: ${written.join()}`,
    );
    ws.terminate();
    let found: RemoteSession | undefined;
    await until(async () => {
      found = (await sessions()).find((s) => s.command === command.join(' ') && s.state === 'ENDED');
      return found !== undefined;
    }, 'the session to end');
    expect(found).toMatchObject({ ending: 'CLIENT_CLOSED' });
    // what the device sent after the client went away was dropped: not counted as sent to the client
    expect(found!.bytesOut).toBeLessThan(100_000_000);
    await until(() => statesOf(command).length === 0, 'the command to be hung up');
  }, 120_000);
});

describe('spec.remoteAccess.shellUser', () => {
  it('runs the shell as the configured user', async (context) => {
    if (process.getuid?.() !== 0) {
      // CI runs as root: there the test must run, not skip
      if (process.env['CI'] === 'true') throw new Error('this test needs root (to create a throwaway user) under CI');
      console.log('skipped: a shell as another user needs an agent running as root, and the test root to add one');
      context.skip();
    }
    const user = `opt21${randomBytes(4).toString('hex')}`;
    execFileSync('useradd', ['--system', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/bin/sh', user]);
    const uid = execFileSync('id', ['-u', user], { encoding: 'utf8' }).trim();
    const whoAmI = async (): Promise<string> => {
      const result = await world.cli([
        'devices',
        'ssh',
        DEVICE,
        '--',
        'sh',
        '-c',
        'echo "$(id -un) $(id -u) $(pwd) $HOME"',
      ]);
      expect(result.code, result.stderr).toBe(0);
      return result.stdout.trim();
    };
    try {
      await world.server.admin.update(
        { name: DEVICE, spec: { remoteAccess: { shellUser: user } } },
        { updateMask: 'spec.remoteAccess' },
      );
      // the agent follows its own copy of the spec: it runs as itself until that arrives
      let answer = '';
      await until(
        async () => (answer = await whoAmI()).startsWith(`${user} `),
        () => `a shell as ${user}: ${answer}`,
      );
      // no home directory: it starts in /
      expect(answer).toBe(`${user} ${uid} / /nonexistent`);
    } finally {
      await world.server.admin.update(
        { name: DEVICE, spec: { remoteAccess: {} } },
        { updateMask: 'spec.remoteAccess' },
      );
      const me = execFileSync('id', ['-un'], { encoding: 'utf8' }).trim();
      await until(async () => (await whoAmI()).startsWith(`${me} `), 'the agent to run shells as itself again');
      execFileSync('userdel', [user]);
    }
  }, 120_000);
});

describe('port forwarding', () => {
  it('carries megabytes both ways through concurrent connections intact', async () => {
    // an echo server on the device's side: each connection gets back exactly what it sent, then the end
    const echo = createServer({ allowHalfOpen: true }, (socket) => socket.pipe(socket));
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    const forward = spawn(
      process.execPath,
      [...CLI_FROM_SOURCES, 'devices', 'port-forward', DEVICE, `0:127.0.0.1:${(echo.address() as AddressInfo).port}`],
      { cwd: REPO, env: cliEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    forward.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    forward.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      await until(
        () => /Forwarding from 127\.0\.0\.1:\d+/.test(stdout),
        () => `the forward to listen: ${stderr}`,
      );
      const localPort = Number(/Forwarding from 127\.0\.0\.1:(\d+)/.exec(stdout)![1]);
      const roundTrip = async (bytes: Buffer): Promise<string> => {
        const socket = connect(localPort, '127.0.0.1');
        const hash = createHash('sha256');
        let got = 0;
        const received = (async () => {
          for await (const chunk of socket) {
            hash.update(chunk as Buffer);
            got += (chunk as Buffer).length;
          }
        })();
        // in pieces of odd sizes, waiting for the socket when it is full
        for (let at = 0; at < bytes.length; at += 100_003) {
          if (!socket.write(bytes.subarray(at, at + 100_003))) {
            await new Promise((resolve) => socket.once('drain', resolve));
          }
        }
        socket.end();
        await received;
        expect(got).toBe(bytes.length);
        return hash.digest('hex');
      };
      const payloads = Array.from({ length: 6 }, (_, i) => randomBytes(3 * 1024 * 1024 + i * 7919));
      const digests = await Promise.all(payloads.map(roundTrip));
      expect(digests).toEqual(payloads.map((p) => createHash('sha256').update(p).digest('hex')));
      expect(stderr).toBe('');
    } finally {
      forward.kill('SIGINT');
      echo.close();
    }
  }, 120_000);
});
