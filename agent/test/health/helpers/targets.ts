import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';

export interface Target {
  port: number;
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1; `handle` answers (or, to hang, never does). */
export async function startHttpTarget(
  handle: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<Target & { closedSockets: () => number }> {
  let closedSockets = 0;
  const server = createServer(handle);
  server.on('connection', (socket: Socket) => socket.once('close', () => closedSockets++));
  const port = await listen(server);
  return {
    port,
    closedSockets: () => closedSockets,
    close: () => {
      server.closeAllConnections();
      return close(server);
    },
  };
}

/** A real TCP listener on 127.0.0.1 (accepts and closes). */
export async function startTcpTarget(): Promise<Target> {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.end();
  });
  const port = await listen(server);
  return {
    port,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return close(server);
    },
  };
}

/** A loopback port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createTcpServer();
  const port = await listen(server);
  await close(server);
  return port;
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

const close = (server: Server): Promise<void> => new Promise((resolve) => server.close(() => resolve()));
