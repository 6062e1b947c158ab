import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import type { RawData, WebSocket } from 'ws';
import { ApiError, CHANNEL_OPEN_COMMAND, ChannelTable } from '@outpost/shared';
import type { Channel, ChannelService, FlowSettings } from '@outpost/shared';
import { AgentLink } from '../../src/link/agent-link.js';
import { capturedLogger } from '../helpers/captured-logger.js';
import { eventually } from '../helpers/eventually.js';

/**
 * The control plane's side of an agent link, just enough for channels: a real WebSocket server on 127.0.0.1
 * that welcomes one real AgentLink, sends commands, and opens channels over binary frames.
 */
export async function startChannelPeer(flow?: FlowSettings) {
  const server = createServer();
  const wss = new WebSocketServer({ server });
  let socket: WebSocket | undefined;
  const results = new Map<string, (message: Record<string, unknown>) => void>();
  const table = new ChannelTable((frame) => {
    if (socket === undefined) return false;
    socket.send(frame);
    return true;
  }, flow);
  let nextChannel = 1;
  wss.on('connection', (ws) => {
    socket = ws;
    ws.on('message', (data: RawData, isBinary) => {
      const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as Buffer);
      if (isBinary) {
        table.route(bytes);
        return;
      }
      const message = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
      if (message['type'] === 'hello') {
        ws.send(
          JSON.stringify({
            type: 'welcome',
            deviceName: 'projects/p/regions/r/devices/d',
            heartbeatSeconds: 30,
            serverTime: new Date().toISOString(),
          }),
        );
      }
      if (message['type'] === 'result') results.get(message['id'] as string)?.(message);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const log = capturedLogger();
  const link = new AgentLink({
    server: url,
    credential: async () => 'credential',
    hello: () => ({ agentVersion: '1.0.0', bootId: 'boot' }),
    logger: log.logger,
  });

  /** Sends a command; resolves with its data, rejects with its error. */
  const command = (name: string, args: unknown): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const id = randomUUID();
      results.set(id, (message) => {
        results.delete(id);
        const error = message['error'] as { status: ApiError['status']; message: string } | undefined;
        if (message['ok'] === true) resolve(message['data']);
        else reject(new ApiError(error?.status ?? 'INTERNAL', error?.message ?? 'failed'));
      });
      socket?.send(JSON.stringify({ type: 'command', id, command: name, args }));
    });

  return {
    link,
    log,
    command,
    async connect(): Promise<void> {
      link.start();
      await eventually(() => {
        if (!link.connected) throw new Error('not connected yet');
      });
    },
    /** Opens a channel to `service`; on a refused open, the channel is released and the error thrown. */
    async open(service: ChannelService, args: unknown): Promise<{ channel: Channel; info: unknown }> {
      const channelId = nextChannel++;
      const channel = table.open(channelId);
      try {
        const info = await command(CHANNEL_OPEN_COMMAND, { channelId, service, args });
        return { channel, info };
      } catch (err) {
        table.release(channelId);
        throw err;
      }
    },
    /** Drops the WebSocket abruptly (the link is lost). */
    cut(): void {
      socket?.terminate();
    },
    async close(): Promise<void> {
      await link.stop();
      for (const client of wss.clients) client.terminate();
      wss.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Everything a channel delivers. */
export async function readChannel(channel: Channel): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of channel) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts);
}
