import { createServer } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import {
  DEVICE_PATTERN,
  TERMINAL_RECORD,
  decodeTerminalMessage,
  encodeTerminalMessage,
  terminalExitSchema,
} from '@outpost/shared';
import type { Command } from 'commander';
import type { RawData } from 'ws';
import { connectionOf } from './connection.js';
import { ExitStatus } from './exit-status.js';
import { UsageError } from './usage-error.js';
import { errorOfClose, openRemoteSocket } from '../remote/remote-access-client.js';
import type { TransferConnection } from '../transfer/transfer-client.js';

/** ssh's status when the session itself failed (not the command) */
const SESSION_FAILED_EXIT = 255;
const WS_BACKLOG_BYTES = 1024 * 1024;
/** node's default is 16 KiB: every forwarded message of 64 KiB would pause the WebSocket until the socket drained */
const LOCAL_SOCKET_BUFFER_BYTES = 1024 * 1024;

interface SshOptions {
  tty?: boolean;
  forceTty?: boolean;
}

/** `outpost devices ssh` and `outpost devices port-forward` (issue 21). */
export function registerRemoteCommands(group: Command): void {
  group
    .command('ssh <device_name> [command...]')
    .description(
      "a shell on the device over its own connection, or the command after --, whose exit status becomes this command's; a pseudo-terminal when stdin is one and no command is given (-t forces one, -T never)",
    )
    .option('-t, --force-tty', 'a pseudo-terminal on the device even for a command or without a local terminal')
    .option('-T, --no-tty', 'never a pseudo-terminal (stdin and stdout as they are)')
    .action(async (device: string, command: string[], opts: SshOptions, cmd: Command) => {
      checkDevice(device);
      const tty =
        opts.tty !== false && (opts.forceTty === true || (process.stdin.isTTY === true && command.length === 0));
      const code = await ssh(connectionOf(cmd), device, command, tty);
      if (code !== 0) throw new ExitStatus(code);
    });

  group
    .command('port-forward <device_name> <forward>')
    .description(
      'forward local TCP connections to TARGET_HOST:TARGET_PORT as reached from the device ([LOCAL_ADDR:]LOCAL_PORT:TARGET_HOST:TARGET_PORT; LOCAL_ADDR defaults to 127.0.0.1, LOCAL_PORT 0 picks a free port); runs until interrupted',
    )
    .action(async (device: string, forward: string, _opts: unknown, cmd: Command) => {
      checkDevice(device);
      await portForward(connectionOf(cmd), device, parseForward(forward));
    });
}

function checkDevice(device: string): void {
  const problem = DEVICE_PATTERN.problemWithName(device);
  if (problem !== null) throw new UsageError(`invalid device name "${device}": ${problem.message}`);
}

async function ssh(connection: TransferConnection, device: string, command: string[], tty: boolean): Promise<number> {
  const query = new URLSearchParams();
  for (const arg of command) query.append('command', arg);
  if (tty) {
    query.set('cols', String(process.stdout.columns || 80));
    query.set('rows', String(process.stdout.rows || 24));
    query.set('term', process.env['TERM'] || 'xterm-256color');
  }
  const ws = await openRemoteSocket(connection, device, 'terminal', query);
  const send = (type: Parameters<typeof encodeTerminalMessage>[0], payload?: Uint8Array): void => {
    if (ws.readyState === ws.OPEN) ws.send(encodeTerminalMessage(type, payload));
  };
  const onInput = (data: Buffer): void => send(TERMINAL_RECORD.INPUT, data);
  const onInputEnd = (): void => send(TERMINAL_RECORD.INPUT_END);
  const onResize = (): void =>
    send(
      TERMINAL_RECORD.RESIZE,
      Buffer.from(JSON.stringify({ cols: process.stdout.columns, rows: process.stdout.rows })),
    );
  // a forced pseudo-terminal without a local one (-t in a script) has nothing to make raw or to follow
  const local = tty && process.stdin.isTTY === true;
  if (local) {
    process.stdin.setRawMode(true);
    process.stdout.on('resize', onResize);
  }
  process.stdin.on('data', onInput);
  process.stdin.once('end', onInputEnd);
  process.stdin.resume();
  let exitCode: number | undefined;
  ws.on('message', (data: RawData) => {
    const record = decodeTerminalMessage(bytesOf(data));
    if (record === undefined) return;
    if (record.type === TERMINAL_RECORD.OUTPUT) process.stdout.write(record.payload);
    else if (record.type === TERMINAL_RECORD.ERROR_OUTPUT) process.stderr.write(record.payload);
    else if (record.type === TERMINAL_RECORD.EXIT) {
      const exit = terminalExitSchema.safeParse(parseJson(record.payload));
      exitCode = exit.success ? exit.data.exitCode : SESSION_FAILED_EXIT;
    }
  });
  const closed = new Promise<[number, string]>((resolve) =>
    ws.once('close', (closeCode: number, closeReason: Buffer) => resolve([closeCode, closeReason.toString()])),
  );
  ws.resume();
  try {
    const [code, reason] = await closed;
    const error = errorOfClose(code, reason);
    if (error !== undefined) throw new ExitStatus(SESSION_FAILED_EXIT, `${error.status}: ${error.message}`);
    return exitCode ?? SESSION_FAILED_EXIT;
  } finally {
    if (local) process.stdin.setRawMode(false);
    process.stdout.off('resize', onResize);
    process.stdin.off('data', onInput);
    process.stdin.off('end', onInputEnd);
    process.stdin.pause();
    // output waiting for a slow terminal is written before the exit status is
    await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
  }
}

export interface ForwardSpec {
  localAddress: string;
  localPort: number;
  targetHost: string;
  targetPort: number;
}

/** `[LOCAL_ADDR:]LOCAL_PORT:TARGET_HOST:TARGET_PORT` */
export function parseForward(text: string): ForwardSpec {
  const parts = text.split(':');
  if (parts.length !== 3 && parts.length !== 4) {
    throw new UsageError(`"${text}" is not [LOCAL_ADDR:]LOCAL_PORT:TARGET_HOST:TARGET_PORT`);
  }
  const [localAddress, localPort, targetHost, targetPort] = parts.length === 4 ? parts : ['127.0.0.1', ...parts];
  const port = (value: string | undefined, what: string, min: number): number => {
    const n = Number(value);
    if (value === undefined || !/^\d+$/.test(value) || n < min || n > 65_535) {
      throw new UsageError(`${what} "${value ?? ''}" must be a port number (${min} to 65535)`);
    }
    return n;
  };
  if (localAddress === undefined || localAddress === '' || targetHost === undefined || targetHost === '') {
    throw new UsageError(`"${text}" names no address or no target host`);
  }
  return {
    localAddress,
    localPort: port(localPort, 'LOCAL_PORT', 0),
    targetHost,
    targetPort: port(targetPort, 'TARGET_PORT', 1),
  };
}

async function portForward(connection: TransferConnection, device: string, spec: ForwardSpec): Promise<void> {
  const query = new URLSearchParams({ host: spec.targetHost, port: String(spec.targetPort) });
  const open = new Set<Socket>();
  // a client that ends its side may still read the answer: the socket stays open until the device's side ends too
  // a local connection buffers up to LOCAL_SOCKET_BUFFER_BYTES each way: fewer pauses of the WebSocket behind it
  const server = createServer({ allowHalfOpen: true, highWaterMark: LOCAL_SOCKET_BUFFER_BYTES }, (socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    forwardConnection(connection, device, query, socket).catch((err: unknown) => {
      const message = err instanceof Error ? err.message : String(err);
      process.stderr.write(`port-forward: a connection failed: ${message}\n`);
      socket.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) =>
      reject(new UsageError(`cannot listen on ${spec.localAddress}:${spec.localPort}: ${err.message}`)),
    );
    server.listen(spec.localPort, spec.localAddress, () => resolve());
  });
  const address = server.address() as AddressInfo;
  process.stdout.write(
    `Forwarding from ${address.address}:${address.port} to ${spec.targetHost}:${spec.targetPort} on ${device}\n`,
  );
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      server.close(() => resolve());
      for (const socket of open) socket.destroy();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

async function forwardConnection(
  connection: TransferConnection,
  device: string,
  query: URLSearchParams,
  socket: Socket,
): Promise<void> {
  socket.pause();
  socket.setNoDelay(true);
  const ws = await openRemoteSocket(connection, device, 'portForward', query);
  ws.on('message', (data: RawData) => {
    if (!socket.write(bytesOf(data))) {
      ws.pause();
      socket.once('drain', () => ws.resume());
    }
  });
  socket.on('data', (chunk: Buffer) => {
    if (ws.bufferedAmount <= WS_BACKLOG_BYTES) return void ws.send(chunk);
    // much unsent: read on once the WebSocket's socket took this chunk (and so all before it)
    socket.pause();
    ws.send(chunk, () => socket.resume());
  });
  // a half close: an empty message tells the device that no more comes from here
  socket.once('end', () => ws.readyState === ws.OPEN && ws.send(Buffer.alloc(0)));
  socket.once('close', () => ws.close());
  socket.on('error', () => ws.close());
  const closed = new Promise<[number, string]>((resolve) =>
    ws.once('close', (closeCode: number, closeReason: Buffer) => resolve([closeCode, closeReason.toString()])),
  );
  ws.resume();
  socket.resume();
  const [code, reason] = await closed;
  socket.end();
  const error = errorOfClose(code, reason);
  if (error !== undefined && code !== 1005) throw error;
}

function bytesOf(data: RawData): Buffer {
  if (Array.isArray(data)) return Buffer.concat(data);
  return data instanceof ArrayBuffer ? Buffer.from(data) : data;
}

function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    return undefined;
  }
}
