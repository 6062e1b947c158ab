/**
 * A TCP relay between the browser and the control plane that can lose the network: cut() drops every open
 * connection and refuses new ones until restore(). The page is loaded through it, so its watch streams break as
 * they would on a real network loss.
 */
import { createServer, connect } from 'node:net';
import type { Server, Socket } from 'node:net';

export class FlakyLink {
  private readonly sockets = new Set<Socket>();
  private down = false;
  private server?: Server;
  url = '';

  constructor(private readonly target: URL) {}

  async start(): Promise<void> {
    this.server = createServer((client) => {
      if (this.down) {
        client.destroy();
        return;
      }
      const upstream = connect(Number(this.target.port), this.target.hostname);
      for (const [a, b] of [
        [client, upstream],
        [upstream, client],
      ] as const) {
        this.sockets.add(a);
        a.pipe(b);
        a.on('error', () => b.destroy());
        a.on('close', () => {
          this.sockets.delete(a);
          b.destroy();
        });
      }
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    if (address === null || typeof address === 'string') throw new Error('the relay has no port');
    this.url = `http://127.0.0.1:${address.port}`;
  }

  /** The network is lost: open connections break, new ones are refused. */
  cut(): void {
    this.down = true;
    for (const socket of this.sockets) socket.destroy();
  }

  restore(): void {
    this.down = false;
  }

  async stop(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}
