import { spawn as spawnChild } from 'node:child_process';
import { access } from 'node:fs/promises';
import { constants } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  TERMINAL_RECORD,
  TerminalRecordDecoder,
  MAX_TERMINAL_RECORD_BYTES,
  encodeTerminalRecord,
  failedPrecondition,
  invalidArgument,
  terminalArgsSchema,
  terminalSizeSchema,
} from '@outpost/shared';
import type { Channel, TerminalArgs, TerminalExit, TerminalRecord } from '@outpost/shared';
import type { Logger } from '../logging/logger.js';
import type { ChannelServiceHandler } from '../transfer/channel-services.js';
import { ownRemoteAccess } from './own-remote-access.js';
import { agentUser, lookUpShellUser } from './shell-user.js';
import type { ShellUser } from './shell-user.js';

/** How long a session that ended waits for the client to end its side. */
const CLIENT_END_WAIT_MS = 10_000;
/** Output waiting for the channel's credit beyond this pauses the process (it then blocks on its own writes). */
const PAUSE_AFTER_PENDING_WRITES = 8;

/** A running session's process, a pseudo-terminal's or a piped one's. */
interface SessionProcess {
  input(bytes: Uint8Array): void;
  inputEnd(): void;
  resize(cols: number, rows: number): void;
  pause(): void;
  resume(): void;
  /** ends the process (the client went away) */
  hangUp(): void;
  exited: Promise<TerminalExit>;
}

type Output = (type: typeof TERMINAL_RECORD.OUTPUT | typeof TERMINAL_RECORD.ERROR_OUTPUT, bytes: Uint8Array) => void;

/**
 * `remote.terminal` (issue 21): runs a login shell or a command as the device's shell user, in a real
 * pseudo-terminal (node-pty) when the client has one, else with pipes; its output, then its exit status, go back
 * as terminal records, and the client's keystrokes, resizes and end of input come in.
 */
export function terminalService(logger: Logger, desiredDeviceFile: string): ChannelServiceHandler {
  return async (raw, channel) => {
    const parsed = terminalArgsSchema.safeParse(raw);
    if (!parsed.success) throw invalidArgument(`invalid remote.terminal arguments: ${parsed.error.issues[0]?.message}`);
    const args = parsed.data;
    const own = await ownRemoteAccess(desiredDeviceFile);
    if (own?.disableTerminal === true) {
      throw failedPrecondition('the remote terminal is disabled on this device (spec.remoteAccess.disableTerminal)');
    }
    // the device's own spec names the user; before it has one, the control plane's word
    const userName = own === undefined ? args.user : own.shellUser;
    const user = userName === undefined ? agentUser() : await lookUpShellUser(userName);
    return { run: () => runSession(args, user, channel, logger) };
  };
}

async function runSession(args: TerminalArgs, user: ShellUser, channel: Channel, logger: Logger): Promise<void> {
  let pending = 0;
  let ended = false;
  let writing: Promise<void> = Promise.resolve();
  // the process is paused and resumed by its own output, which starts before it is known here
  const flow: { session?: SessionProcess } = {};
  const settled = (): void => {
    pending--;
    if (pending === PAUSE_AFTER_PENDING_WRITES - 1) flow.session?.resume();
  };
  const output: Output = (type, bytes) => {
    for (let at = 0; at < bytes.length; at += MAX_TERMINAL_RECORD_BYTES) {
      pending++;
      if (pending === PAUSE_AFTER_PENDING_WRITES) flow.session?.pause();
      const piece = bytes.subarray(at, at + MAX_TERMINAL_RECORD_BYTES);
      writing = channel.write(encodeTerminalRecord(type, piece)).then(settled, settled);
    }
  };
  const started = args.tty === undefined ? await startPiped(args, user, output) : await startPty(args, user, output);
  flow.session = started;
  const inputEnded = readInput(channel, started).catch(() => {
    if (!ended) started.hangUp();
  });
  const exit = await started.exited;
  ended = true;
  await writing;
  logger.info({ command: args.command?.[0] ?? 'interactive', user: user.name, ...exit }, 'remote terminal ended');
  if (channel.error !== undefined) return;
  await channel.write(encodeTerminalRecord(TERMINAL_RECORD.EXIT, Buffer.from(JSON.stringify(exit))));
  await channel.end();
  // the channel stays open until the client's side ended too: what it sent as the command exited (its end of input)
  // must not meet a closed channel, which would fail the session at the client's end
  await Promise.race([inputEnded, sleep(CLIENT_END_WAIT_MS, undefined, { ref: false })]);
}

/** The client's records, until it ends its side or the channel fails (which throws: the process is hung up). */
async function readInput(channel: Channel, session: SessionProcess): Promise<void> {
  const decoder = new TerminalRecordDecoder();
  for await (const chunk of channel) {
    for (const record of decoder.push(chunk)) apply(record, session);
  }
  session.inputEnd();
}

function apply(record: TerminalRecord, session: SessionProcess): void {
  switch (record.type) {
    case TERMINAL_RECORD.INPUT:
      return session.input(record.payload);
    case TERMINAL_RECORD.INPUT_END:
      return session.inputEnd();
    case TERMINAL_RECORD.RESIZE: {
      const size = terminalSizeSchema.safeParse(parseJson(record.payload));
      if (size.success) session.resize(size.data.cols, size.data.rows);
      return;
    }
    default:
      return; // output records are the device's own: a client sending them is ignored
  }
}

function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    return undefined;
  }
}

function environment(user: ShellUser, term: string | undefined): NodeJS.ProcessEnv {
  return {
    PATH: process.env['PATH'] ?? '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    HOME: user.home,
    USER: user.name,
    LOGNAME: user.name,
    SHELL: user.shell,
    LANG: process.env['LANG'] ?? 'C.UTF-8',
    ...(term === undefined ? {} : { TERM: term }),
  };
}

/** argv of the session: the command, or the user's shell as a login shell */
const argvOf = (args: TerminalArgs, user: ShellUser): [string, string[]] =>
  args.command === undefined ? [user.shell, ['-l']] : [args.command[0]!, args.command.slice(1)];

const asUser = (user: ShellUser): { uid?: number; gid?: number } =>
  user.uid === process.getuid?.() ? {} : { uid: user.uid, gid: user.gid };

/** a user without a home directory starts in / */
const homeOrRoot = (user: ShellUser): Promise<string> =>
  access(user.home).then(
    () => user.home,
    () => '/',
  );

async function startPty(args: TerminalArgs, user: ShellUser, output: Output): Promise<SessionProcess> {
  // a native addon: loaded on the first terminal only
  const { spawn } = await import('node-pty');
  const [file, argv] = argvOf(args, user);
  const term = args.tty?.term ?? 'xterm-256color';
  const pty = spawn(file, argv, {
    name: term,
    cols: args.tty?.cols ?? 80,
    rows: args.tty?.rows ?? 24,
    cwd: await homeOrRoot(user),
    env: environment(user, term),
    encoding: null,
    ...asUser(user),
  });
  // with `encoding: null` the data are Buffers (the typings say string)
  pty.onData((data: string | Buffer) =>
    output(TERMINAL_RECORD.OUTPUT, typeof data === 'string' ? Buffer.from(data) : data),
  );
  const exited = new Promise<TerminalExit>((resolve) =>
    pty.onExit(({ exitCode, signal }) =>
      resolve({ exitCode: signal ? 128 + signal : exitCode, ...(signal ? { signal: String(signal) } : {}) }),
    ),
  );
  return {
    input: (bytes) => pty.write(Buffer.from(bytes)),
    inputEnd: () => undefined, // a terminal's end of input is Ctrl-D, sent as input
    resize: (cols, rows) => pty.resize(cols, rows),
    pause: () => pty.pause(),
    resume: () => pty.resume(),
    hangUp: () => pty.kill('SIGHUP'),
    exited,
  };
}

async function startPiped(args: TerminalArgs, user: ShellUser, output: Output): Promise<SessionProcess> {
  const [file, argv] = argvOf(args, user);
  const child = spawnChild(file, argv, {
    cwd: await homeOrRoot(user),
    env: environment(user, undefined),
    stdio: 'pipe',
    ...asUser(user),
  });
  child.stdout.on('data', (data: Buffer) => output(TERMINAL_RECORD.OUTPUT, data));
  child.stderr.on('data', (data: Buffer) => output(TERMINAL_RECORD.ERROR_OUTPUT, data));
  child.stdin.on('error', () => undefined); // the command may exit without reading its input
  const exited = new Promise<TerminalExit>((resolve) => {
    child.once('error', (err) => {
      output(TERMINAL_RECORD.ERROR_OUTPUT, Buffer.from(`${file}: ${err.message}\n`));
      resolve({ exitCode: 127 });
    });
    child.once('close', (code, signal) =>
      resolve(signal === null ? { exitCode: code ?? 0 } : { exitCode: 128 + signalNumber(signal), signal }),
    );
  });
  return {
    input: (bytes) => void child.stdin.write(bytes),
    inputEnd: () => void child.stdin.end(),
    resize: () => undefined,
    pause: () => {
      child.stdout.pause();
      child.stderr.pause();
    },
    resume: () => {
      child.stdout.resume();
      child.stderr.resume();
    },
    hangUp: () => void child.kill('SIGHUP'),
    exited,
  };
}

const signalNumber = (signal: NodeJS.Signals): number => constants.signals[signal] ?? 0;
