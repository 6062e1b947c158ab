import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { unauthenticated } from '@outpost/shared';
import type { FlowSettings } from '@outpost/shared';
import { refuseUpgrade } from '../gateway/agent-gateway.js';
import type { OpenChannel } from '../gateway/channels/channel-hub.js';
import type { LinksElsewhere } from '../gateway/links-elsewhere.js';
import type { Logger } from '../server/logger.js';
import { pipeChannels } from './relay-pump.js';
import { RELAY_PATH, failureAnswer, relayRequestSchema } from './relay-protocol.js';
import type { RelayAnswer, RelayRequest } from './relay-protocol.js';
import { RelaySocket } from './relay-socket.js';

export interface RelayEndpointOptions {
  /** the cluster secret other replicas must present (undefined until it is read: every relay is refused) */
  secret(): string | undefined;
  /** the devices whose link this replica holds (never routed on: a link that moved answers UNAVAILABLE) */
  here: LinksElsewhere;
  flow?: FlowSettings;
  logger: Logger;
}

export interface RelayEndpoint {
  /** Takes the upgrade when it is for the relay path (true), else leaves it. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  close(): void;
}

/**
 * The replica side that holds a device's link: other replicas open a relay WebSocket to it (authenticated with
 * the cluster secret) and send it commands and channel openings for its devices; channels are joined to the
 * device's channel (relay-pump.ts).
 */
export function relayEndpoint(options: RelayEndpointOptions): RelayEndpoint {
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  const sockets = new Set<RelaySocket>();
  const serve = (relay: RelaySocket, text: string): void => {
    let request: RelayRequest;
    try {
      request = relayRequestSchema.parse(JSON.parse(text));
    } catch (err) {
      options.logger.warn({ err }, 'refused a relay message from another replica');
      relay.close();
      return;
    }
    const answer = (message: RelayAnswer): void => void relay.sendJson(message);
    if (request.type === 'command') {
      options.here
        .sendCommand(request.device, request.command, request.args, request.timeoutMs)
        .then((data) => answer({ id: request.id, ok: true, data }))
        .catch((err: unknown) => answer(failureAnswer(request.id, err)));
      return;
    }
    void openRelayed(relay, request, answer);
  };
  const openRelayed = async (
    relay: RelaySocket,
    request: Extract<RelayRequest, { type: 'open' }>,
    answer: (message: RelayAnswer) => void,
  ): Promise<void> => {
    let opened: OpenChannel;
    try {
      opened = await options.here.openChannel(request.device, request.service, request.args, request.timeoutMs);
    } catch (err) {
      answer(failureAnswer(request.id, err));
      return;
    }
    if (!relay.isOpen || relay.channels.get(request.channelId) !== undefined) {
      opened.channel.abort({ status: 'UNAVAILABLE', message: 'the relay of this channel went away' });
      opened.release();
      if (relay.isOpen) answer(failureAnswer(request.id, new Error(`channel ${request.channelId} is in use`)));
      return;
    }
    const relayed = relay.channels.open(request.channelId);
    answer({ id: request.id, ok: true, data: opened.info });
    await pipeChannels(opened.channel, relayed);
    opened.release();
    relay.channels.release(request.channelId);
  };

  return {
    upgrade(req, socket, head) {
      if ((req.url ?? '').split('?')[0] !== RELAY_PATH) return false;
      if (!authorized(req.headers.authorization, options.secret())) {
        refuseUpgrade(socket, unauthenticated('the relay needs the cluster secret'));
        return true;
      }
      wss.handleUpgrade(req, socket, head, (ws) => {
        const relay: RelaySocket = new RelaySocket(
          ws,
          (text) => serve(relay, text),
          () => sockets.delete(relay),
          options.flow,
        );
        sockets.add(relay);
      });
      return true;
    },
    close() {
      for (const relay of sockets) relay.close();
      wss.close();
    },
  };
}

function authorized(header: string | undefined, secret: string | undefined): boolean {
  const presented = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
  if (presented === undefined || secret === undefined) return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}
