import { WebSocket } from 'ws';
import type { RawData } from 'ws';
import { AGENT_CONNECT_PATH, ApiError, ChannelTable } from '@outpost/shared';
import type { AgentMessage, Channel } from '@outpost/shared';
import { answerHeartbeats } from '../helpers/answer-heartbeats.js';

export type JsonMessage = Record<string, unknown> & { type: string };

/** How a scripted agent answers one command: data, or a thrown ApiError. */
export type CommandScript = (args: unknown, agent: ScriptedAgent) => unknown;

/**
 * A device speaking the agent protocol by hand over a real WebSocket, with real channels: each command is
 * answered by a script of the test, and `channel.open` opens a channel the script receives (to play a device's
 * side of a transfer, or misbehave on purpose).
 */
export class ScriptedAgent {
  readonly received: JsonMessage[] = [];
  readonly channels: ChannelTable;
  /** settles once the link closed, by either side */
  readonly ended: Promise<{ code: number; reason: string }>;
  private readonly scripts = new Map<string, CommandScript>();

  private constructor(private readonly socket: WebSocket) {
    this.ended = new Promise((resolve) =>
      socket.once('close', (code: number, reason: Buffer) => resolve({ code, reason: reason.toString() })),
    );
    this.channels = new ChannelTable((frame) => {
      if (socket.readyState !== WebSocket.OPEN) return false;
      socket.send(frame);
      return true;
    });
    socket.on('message', (data: RawData, isBinary: boolean) => {
      const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as Buffer);
      if (isBinary) {
        this.channels.route(bytes);
        return;
      }
      const message = JSON.parse(bytes.toString('utf8')) as JsonMessage;
      this.received.push(message);
      if (message.type === 'command') void this.answer(message);
    });
  }

  static async connect(serverUrl: string, credential: string): Promise<ScriptedAgent> {
    const socket = new WebSocket(serverUrl.replace(/^http/, 'ws') + AGENT_CONNECT_PATH, {
      headers: { authorization: `Bearer ${credential}` },
    });
    const agent = new ScriptedAgent(socket);
    // as an agent does: a test server with 1 s heartbeats cuts a link silent for two of them
    answerHeartbeats(socket);
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once('open', () => resolve());
        socket.once('error', reject);
      });
      agent.send({ type: 'hello', agentVersion: '0.0.0-test', bootId: 'boot-1', capabilities: ['status', 'spec'] });
      await agent.next('welcome');
    } catch (err) {
      socket.terminate(); // a link that was never welcomed must not linger beside the next attempt
      throw err;
    }
    agent.send({ type: 'getSpec' });
    return agent;
  }

  /** Answers `command` with `script` from now on. */
  on(command: string, script: CommandScript): void {
    this.scripts.set(command, script);
  }

  /** Answers `channel.open` for `service`: `open` gets the channel and the args, and may throw to refuse. */
  onChannel(service: string, open: (channel: Channel, args: unknown) => unknown): void {
    const previous = this.scripts.get('channel.open');
    this.on('channel.open', (raw, agent) => {
      const { channelId, service: asked, args } = raw as { channelId: number; service: string; args: unknown };
      if (asked !== service) {
        if (previous) return previous(raw, agent);
        throw new ApiError('UNIMPLEMENTED', `no channel service ${asked}`);
      }
      const channel = this.channels.open(channelId);
      return open(channel, args) ?? {};
    });
  }

  send(message: AgentMessage): void {
    this.socket.send(JSON.stringify(message));
  }

  /** The messages of `type` received so far. */
  all(type: string): JsonMessage[] {
    return this.received.filter((m) => m.type === type);
  }

  /** Waits for the `count`-th message of `type`. */
  async next(type: string, count = 1, timeoutMs = 10_000): Promise<JsonMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.all(type)[count - 1];
      if (found !== undefined) return found;
      if (Date.now() > deadline)
        throw new Error(`no ${count}. "${type}"; got ${this.received.map((m) => m.type).join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  close(): Promise<void> {
    if (this.socket.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      this.socket.once('close', () => resolve());
      this.socket.close();
    });
  }

  private async answer(message: JsonMessage): Promise<void> {
    const id = message['id'] as string;
    const script = this.scripts.get(message['command'] as string);
    try {
      if (script === undefined) throw new ApiError('UNIMPLEMENTED', `no command ${String(message['command'])}`);
      const data = await script(message['args'], this);
      this.send({ type: 'result', id, ok: true, ...(data === undefined ? {} : { data }) });
    } catch (err) {
      const error = err instanceof ApiError ? err : new ApiError('INTERNAL', String(err));
      this.send({ type: 'result', id, ok: false, error: { status: error.status, message: error.message } });
    }
  }
}

/**
 * A scripted device that connects again whenever its link ends, as an agent does: a control plane drops links it
 * expects to come back (on PostgreSQL, a replica whose presence lease lapsed drops every link, 4001), and a link
 * silent through two heartbeats is cut. `setUp` scripts each new link before the test may use it.
 */
export class ReconnectingScriptedAgent {
  private current: Promise<ScriptedAgent>;
  private stopped = false;

  constructor(
    private readonly serverUrl: string,
    private readonly credential: string,
    private readonly setUp: (agent: ScriptedAgent) => void,
  ) {
    this.current = this.connect(0);
  }

  /** The device's current link, once the control plane welcomed it: the device is connected there. */
  linked(): Promise<ScriptedAgent> {
    return this.current;
  }

  async close(): Promise<void> {
    this.stopped = true;
    const agent = await this.current.catch(() => undefined);
    await agent?.close();
  }

  private async connect(delayMs: number): Promise<ScriptedAgent> {
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      if (this.stopped) throw new Error('the scripted agent was closed');
      let agent: ScriptedAgent;
      try {
        agent = await ScriptedAgent.connect(this.serverUrl, this.credential);
      } catch {
        delayMs = RECONNECT_DELAY_MS; // the server is busy or restarting: as an agent, try again
        continue;
      }
      if (this.stopped) {
        await agent.close();
        throw new Error('the scripted agent was closed');
      }
      this.setUp(agent);
      void agent.ended.then(() => {
        if (!this.stopped) this.current = this.connect(RECONNECT_DELAY_MS);
      });
      return agent;
    }
  }
}

const RECONNECT_DELAY_MS = 200;

/** Creates a device and issues its credential. */
export async function createDevice(
  admin: {
    create(parent: string, plural: string, body: unknown): Promise<unknown>;
    request<T>(method: 'POST', path: string, opts: { body: unknown }): Promise<T>;
  },
  name: string,
): Promise<string> {
  await admin.create(name.slice(0, name.indexOf('/devices/')), 'devices', { name });
  return (await admin.request<{ credential: string }>('POST', `/v1/${name}:issueCredential`, { body: {} })).credential;
}
