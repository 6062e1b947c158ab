import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';

export interface ConnectProxyOptions {
  /** `user:password` the proxy demands (407 without it) */
  credentials?: string;
}

/** A tiny real HTTP CONNECT proxy on 127.0.0.1: records every tunnel it is asked for and pipes the bytes. */
export class ConnectProxy {
  /** `host:port` of every CONNECT, in order, refused ones included */
  readonly requests: string[] = [];
  /** the tunnels it opened (requests it answered 200) */
  tunnels = 0;
  private readonly sockets = new Set<Socket>();

  private constructor(private readonly server: Server) {}

  static async start(options: ConnectProxyOptions = {}): Promise<ConnectProxy> {
    const server = createServer((_request, response) => response.writeHead(405).end());
    const proxy = new ConnectProxy(server);
    server.on('connect', (request, client: Socket, head: Buffer) => {
      proxy.track(client);
      const target = request.url ?? '';
      proxy.requests.push(target);
      const expected =
        options.credentials === undefined ? undefined : `Basic ${Buffer.from(options.credentials).toString('base64')}`;
      if (expected !== undefined && request.headers['proxy-authorization'] !== expected) {
        client.end('HTTP/1.1 407 Proxy Authentication Required\r\ncontent-length: 0\r\n\r\n');
        return;
      }
      const colon = target.lastIndexOf(':');
      const host = target.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
      const upstream = connect(Number(target.slice(colon + 1)), host);
      proxy.track(upstream);
      upstream.once('connect', () => {
        proxy.tunnels += 1;
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length > 0) upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.once('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n'));
      client.once('error', () => upstream.destroy());
      client.once('close', () => upstream.destroy());
      upstream.once('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Cuts every tunnel open now (the proxy's clients see their connections drop). */
  cutTunnels(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  async close(): Promise<void> {
    this.cutTunnels();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
  }
}
