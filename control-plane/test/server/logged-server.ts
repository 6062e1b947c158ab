import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { startServer } from '../../src/server.js';
import type { ServerExtras, StartedServer } from '../../src/server.js';
import type { ServerConfig } from '../../src/server/config.js';

export const ADMIN_KEY = 'logged-server-admin-key-0123456789';

export interface LoggedServer {
  server: StartedServer;
  url: string;
  dataDir: string;
  /** every log line the server wrote, parsed */
  logs: Record<string, unknown>[];
  /** the log lines of level error (50) and above */
  serverErrors(): Record<string, unknown>[];
  /** fetch with the admin key */
  admin(path: string, init?: RequestInit): Promise<Response>;
  dispose(): Promise<void>;
}

/** A real control plane on 127.0.0.1 (fresh data folder unless given) whose log lines the test can read. */
export async function startLoggedServer(
  config: Partial<ServerConfig> = {},
  extras: ServerExtras = {},
  dataDir?: string,
): Promise<LoggedServer> {
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), 'outpost-logged-'));
  const logs: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'info' },
    { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) },
  );
  const server = await startServer(
    {
      host: '127.0.0.1',
      port: 0,
      dataDir: dir,
      adminKey: ADMIN_KEY,
      logLevel: 'info',
      heartbeatSeconds: 15,
      ...config,
    },
    logger,
    extras,
  );
  return {
    server,
    url: server.url,
    dataDir: dir,
    logs,
    serverErrors: () => logs.filter((line) => Number(line['level']) >= 50),
    admin: (path, init = {}) =>
      fetch(`${server.url}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${ADMIN_KEY}`, ...(init.headers as Record<string, string> | undefined) },
      }),
    dispose: async () => {
      await server.close();
      if (dataDir === undefined) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface RawConnection {
  write(data: string | Buffer): void;
  /** everything received so far */
  received(): string;
  /** settles with the milliseconds from connecting to the server closing the connection */
  closed: Promise<number>;
  destroy(): void;
}

/** A bare TCP connection to the server, for requests no HTTP client would send (stalled, partial). */
export async function rawConnection(url: string): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await once(socket, 'connect');
  const started = Date.now();
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (text += chunk));
  socket.on('error', () => {}); // a reset by the server shows as the close
  const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now() - started)));
  return {
    write: (data) => void socket.write(data),
    received: () => text,
    closed,
    destroy: () => socket.destroy(),
  };
}

/** Resolves with `value` after `ms`. */
export const after = <T>(ms: number, value: T): Promise<T> =>
  new Promise((resolve) => setTimeout(() => resolve(value), ms));

/** The status code and JSON body of a raw HTTP/1.1 response (no chunked bodies). */
export function parseRawResponse(text: string): { status: number; headers: string; body: unknown } {
  const [head = '', body = ''] = text.split('\r\n\r\n', 2);
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? NaN);
  let parsed: unknown = body;
  try {
    parsed = JSON.parse(body);
  } catch {
    // not JSON: keep the text
  }
  return { status, headers: head.toLowerCase(), body: parsed };
}
