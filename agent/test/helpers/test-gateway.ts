import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { AGENT_CONNECT_PATH } from '@outpost/shared';
import { eventually } from './eventually.js';

export type JsonMessage = Record<string, unknown> & { type?: unknown };

/** One agent connection as the test server sees it. */
export class GatewayConnection {
  readonly received: JsonMessage[] = [];
  readonly closed: Promise<void>;

  constructor(
    readonly socket: WebSocket,
    readonly authorization: string | undefined,
  ) {
    socket.on('message', (data: Buffer) => this.received.push(JSON.parse(data.toString('utf8')) as JsonMessage));
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
  }

  send(message: object | string): void {
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  welcome(heartbeatSeconds = 30): void {
    this.send({
      type: 'welcome',
      deviceName: 'projects/p/regions/r/devices/d1',
      heartbeatSeconds,
      serverTime: new Date().toISOString(),
    });
  }

  /** The first received message of `type` matching `where`, waiting for it. */
  waitFor(type: string, where: (message: JsonMessage) => boolean = () => true): Promise<JsonMessage> {
    return eventually(() => {
      const found = this.received.find((m) => m.type === type && where(m));
      if (found === undefined)
        throw new Error(`no "${type}" message yet; got ${JSON.stringify(this.received.map((m) => m.type))}`);
      return found;
    });
  }

  count(type: string): number {
    return this.received.filter((m) => m.type === type).length;
  }
}

export interface TestGatewayOptions {
  /** the HTTP status to refuse an upgrade with, or undefined to accept it */
  refuseUpgrade?: (request: IncomingMessage) => number | undefined;
  /** plain HTTP requests (registration) */
  onRequest?: (request: IncomingMessage, response: ServerResponse) => void;
}

/** A tiny real HTTP + WebSocket server on 127.0.0.1 standing in for the control plane. */
export class TestGateway {
  readonly connections: GatewayConnection[] = [];
  refusedUpgrades = 0;

  private constructor(
    private readonly server: Server,
    private readonly wss: WebSocketServer,
  ) {}

  static async start(options: TestGatewayOptions = {}): Promise<TestGateway> {
    const server = createServer((request, response) => {
      if (options.onRequest !== undefined) options.onRequest(request, response);
      else response.writeHead(404).end();
    });
    const wss = new WebSocketServer({ noServer: true });
    const gateway = new TestGateway(server, wss);
    server.on('upgrade', (request, socket, head) => {
      if (new URL(request.url ?? '/', 'http://x').pathname !== AGENT_CONNECT_PATH) {
        socket.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n');
        return;
      }
      const refusal = options.refuseUpgrade?.(request);
      if (refusal !== undefined) {
        gateway.refusedUpgrades += 1;
        socket.end(`HTTP/1.1 ${refusal} Refused\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`);
        return;
      }
      wss.handleUpgrade(request, socket, head, (ws) => {
        gateway.connections.push(new GatewayConnection(ws, request.headers.authorization));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return gateway;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The index-th connection (0-based), waiting for it. */
  connection(index: number): Promise<GatewayConnection> {
    return eventually(() => {
      const connection = this.connections[index];
      if (connection === undefined) throw new Error(`only ${this.connections.length} connections so far`);
      return connection;
    });
  }

  async close(): Promise<void> {
    for (const client of this.wss.clients) client.terminate();
    this.wss.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
