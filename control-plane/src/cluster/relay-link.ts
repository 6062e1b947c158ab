import { WebSocket } from 'ws';
import { ApiError, unavailable } from '@outpost/shared';
import type { ChannelService, FlowSettings } from '@outpost/shared';
import type { OpenChannel } from '../gateway/channels/channel-hub.js';
import { RELAY_PATH, relayAnswerSchema } from './relay-protocol.js';
import type { RelayAnswer, RelayRequest } from './relay-protocol.js';
import { RelaySocket } from './relay-socket.js';

/** How much longer than the command's own timeout the asking replica waits for the other's answer. */
const ANSWER_GRACE_MS = 5_000;
const CONNECT_TIMEOUT_MS = 10_000;
const MAX_CHANNEL_ID = 0xffff_ffff;

interface Pending {
  resolve(data: unknown): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

/** This replica's relay WebSocket to another replica (the one holding some devices' links). */
export class RelayLink {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private nextChannel = 1;
  private readonly socket: RelaySocket;

  private constructor(ws: WebSocket, flow: FlowSettings | undefined) {
    this.socket = new RelaySocket(
      ws,
      (text) => this.answered(text),
      () => this.failAll(unavailable('the relay link to the replica holding the device closed')),
      flow,
    );
  }

  /**
   * Opens the relay to the replica at `address` (its URL), presenting the cluster secret. `ca`: the PEM of the
   * certificate authorities trusted for a replica serving TLS (instead of the system's).
   */
  static connect(address: string, secret: string, flow?: FlowSettings, ca?: string): Promise<RelayLink> {
    const url = new URL(RELAY_PATH, address.replace(/^http/, 'ws'));
    const ws = new WebSocket(url, {
      headers: { authorization: `Bearer ${secret}` },
      perMessageDeflate: false,
      // a zero mask: relayed channel bytes are not XORed (README "Port forwarding": why masking protects nothing here)
      generateMask: (mask: Buffer) => mask.fill(0),
      handshakeTimeout: CONNECT_TIMEOUT_MS,
      ...(ca === undefined ? {} : { ca }),
    });
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new RelayLink(ws, flow)));
      ws.once('unexpected-response', (_req, res) => {
        ws.terminate();
        reject(unavailable(`the replica at ${address} refused the relay (HTTP ${res.statusCode})`));
      });
      ws.on('error', (err) => reject(unavailable(`cannot reach the replica at ${address}: ${err.message}`)));
    });
  }

  get isOpen(): boolean {
    return this.socket.isOpen;
  }

  command(device: string, command: string, args: unknown, timeoutMs: number): Promise<unknown> {
    return this.request({ type: 'command', id: this.nextId++, device, command, args, timeoutMs }, timeoutMs);
  }

  async openChannel(device: string, service: ChannelService, args: unknown, timeoutMs: number): Promise<OpenChannel> {
    const channelId = this.allocateChannel();
    const channel = this.socket.channels.open(channelId);
    const release = (): void => this.socket.channels.release(channelId);
    let info: unknown;
    try {
      info = await this.request(
        { type: 'open', id: this.nextId++, device, service, args, timeoutMs, channelId },
        timeoutMs,
      );
    } catch (err) {
      release();
      throw err;
    }
    return { channel, info, release };
  }

  close(): void {
    this.socket.close();
  }

  private request(message: RelayRequest, timeoutMs: number): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(message.id);
        reject(unavailable(`the replica holding device "${message.device}" did not answer in time`));
      }, timeoutMs + ANSWER_GRACE_MS);
      this.pending.set(message.id, { resolve, reject, timer });
      if (!this.socket.sendJson(message)) {
        this.settle(message.id)?.reject(unavailable('the relay link to the replica holding the device closed'));
      }
    });
  }

  private answered(text: string): void {
    let answer: RelayAnswer;
    try {
      answer = relayAnswerSchema.parse(JSON.parse(text));
    } catch {
      this.socket.close(); // not a replica of this cluster speaking
      return;
    }
    const pending = this.settle(answer.id);
    if (pending === undefined) return;
    if (answer.ok) pending.resolve(answer.data);
    else pending.reject(new ApiError(answer.error.status, answer.error.message));
  }

  private settle(id: number): Pending | undefined {
    const pending = this.pending.get(id);
    if (pending === undefined) return undefined;
    this.pending.delete(id);
    clearTimeout(pending.timer);
    return pending;
  }

  private failAll(error: Error): void {
    for (const id of [...this.pending.keys()]) this.settle(id)?.reject(error);
  }

  private allocateChannel(): number {
    let id = this.nextChannel;
    while (this.socket.channels.get(id) !== undefined) id = id >= MAX_CHANNEL_ID ? 1 : id + 1;
    this.nextChannel = id >= MAX_CHANNEL_ID ? 1 : id + 1;
    return id;
  }
}
