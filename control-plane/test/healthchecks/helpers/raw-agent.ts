import { WebSocket } from 'ws';
import { AGENT_CONNECT_PATH } from '@outpost/shared';
import type { AgentMessage, DesiredDevice } from '@outpost/shared';
import type { TestServer } from '../../helpers/test-server.js';

export type ServerMessageJson = Record<string, unknown> & { type: string };

/** A device as the gateway sees it, speaking the agent protocol by hand over a real WebSocket. */
export class RawAgent {
  readonly received: ServerMessageJson[] = [];

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data: Buffer) => this.received.push(JSON.parse(data.toString('utf8')) as ServerMessageJson));
  }

  /** Connects with the device's credential and says hello. */
  static async connect(server: Pick<TestServer, 'url'>, credential: string): Promise<RawAgent> {
    const socket = new WebSocket(server.url.replace(/^http/, 'ws') + AGENT_CONNECT_PATH, {
      headers: { authorization: `Bearer ${credential}` },
    });
    const agent = new RawAgent(socket); // listening before the welcome can arrive
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    agent.send({
      type: 'hello',
      agentVersion: '0.0.0-test',
      bootId: 'boot-1',
      capabilities: ['status', 'metrics', 'spec'],
    });
    await agent.next('welcome');
    await agent.next('spec'); // the answer to the hello
    // as the agent does after its first welcome: the spec the hello brought answers it (no second spec)
    agent.send({ type: 'getSpec' });
    return agent;
  }

  send(message: AgentMessage): void {
    this.socket.send(JSON.stringify(message));
  }

  /** The spec messages received so far. */
  specs(): DesiredDevice[] {
    return this.received.filter((m) => m.type === 'spec').map((m) => m['device'] as DesiredDevice);
  }

  /** Runs `action` and waits for the spec message it makes the server push (the first one after it started). */
  async specPushedBy(action: () => Promise<unknown>): Promise<DesiredDevice> {
    const seen = this.specs().length;
    await action();
    await this.next('spec', seen + 1);
    return this.specs()[seen]!;
  }

  /** Waits for the `count`-th message of `type` (1-based, counting from the start). */
  async next(type: string, count = 1, timeoutMs = 10_000): Promise<ServerMessageJson> {
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

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.socket.once('close', () => resolve());
      this.socket.close();
    });
  }
}

/** Creates a device (with labels) and issues its credential. */
export async function createDevice(
  server: TestServer,
  name: string,
  labels: Record<string, string> = {},
): Promise<string> {
  const parent = name.slice(0, name.indexOf('/devices/'));
  await server.admin.create(parent, 'devices', { name, metadata: { labels } });
  const { credential } = await server.admin.request<{ credential: string }>('POST', `/v1/${name}:issueCredential`, {
    body: {},
  });
  return credential;
}
