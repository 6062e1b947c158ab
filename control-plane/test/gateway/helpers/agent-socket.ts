import { WebSocket } from 'ws';
import { AGENT_CONNECT_PATH } from '@outpost/shared';

export type ReceivedMessage = Record<string, unknown> & { type: string };

/**
 * One agent connection spoken by hand over a real WebSocket: frames are sent as given (so a test can send what a
 * real agent never would), and every text frame received is kept.
 */
export class AgentSocket {
  readonly received: ReceivedMessage[] = [];
  /** the close code, once the connection closed */
  closeCode: number | undefined;
  readonly closed: Promise<number>;

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data: Buffer) => this.received.push(JSON.parse(data.toString('utf8')) as ReceivedMessage));
    this.closed = new Promise((resolve) =>
      socket.once('close', (code: number) => {
        this.closeCode = code;
        resolve(code);
      }),
    );
  }

  /** Connects with a device credential, says hello and waits for the welcome. */
  static async connect(serverUrl: string, credential: string): Promise<AgentSocket> {
    const socket = new WebSocket(serverUrl.replace(/^http/, 'ws') + AGENT_CONNECT_PATH, {
      headers: { authorization: `Bearer ${credential}` },
    });
    const agent = new AgentSocket(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    agent.send({ type: 'hello', agentVersion: '0.0.0-test', bootId: 'boot-1', capabilities: ['status', 'metrics'] });
    await agent.next('welcome');
    return agent;
  }

  send(message: Record<string, unknown>): void {
    this.socket.send(JSON.stringify(message));
  }

  /** Waits for the `count`-th message of `type` (1-based, counting from the start). */
  async next(type: string, count = 1, timeoutMs = 10_000): Promise<ReceivedMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.filter((m) => m.type === type)[count - 1];
      if (found !== undefined) return found;
      if (Date.now() > deadline) {
        throw new Error(`no ${count}. "${type}" message; got ${JSON.stringify(this.received.map((m) => m.type))}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  close(): void {
    this.socket.terminate();
  }
}
