import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { hostname } from 'node:os';
import type { Duplex } from 'node:stream';
import type { Device } from '@outpost/shared';
import type { AgentGateway } from '../gateway/agent-gateway.js';
import type { LinkPresence, LinksElsewhere } from '../gateway/links-elsewhere.js';
import type { ResourceEngine } from '../resources/resource-engine.js';
import type { ResourceHandle } from '../resources/resource-handle.js';
import type { Coordination } from '../resources/storage/coordination.js';
import type { Logger } from '../server/logger.js';
import { PresenceLeases } from './presence-leases.js';
import { markLinksOffline, releaseEndedLinks } from './offline-marking.js';
import { startPresenceSweep } from './presence-sweep.js';
import { relayEndpoint } from './relay-endpoint.js';
import { CommandRouter } from './routing.js';

export interface ClusterLinksOptions {
  /** how the replicas coordinate in the store they share (the engine's: ResourceEngine.coordination) */
  coordination: Coordination;
  /**
   * the engine on that database: an Offline write (the sweep's, or the release of links that ended here) and its
   * lock of the presence rows are one transaction
   */
  engine: ResourceEngine;
  /** the agents' heartbeat: a replica's lease lasts 1.5 of them, renewed every half (see presence-sweep.ts) */
  heartbeatSeconds: number;
  /** the PEM of the certificate authorities trusted for other replicas serving TLS (the system's when undefined) */
  relayCa?: string;
  logger: Logger;
}

export interface ClusterLinks {
  presence: LinkPresence;
  elsewhere: LinksElsewhere;
  /** the relay WebSocket other replicas open to this one (true when it took the upgrade) */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /**
   * Starts once the server listens at `url`; the other replicas reach this one there (an unspecified address,
   * 0.0.0.0 or ::, by this host's name instead).
   */
  start(url: string, gateway: AgentGateway, devices: ResourceHandle<Device>): Promise<void>;
  close(): Promise<void>;
}

/**
 * Device links across replicas on one PostgreSQL (issue 23): the presence record of which replica holds each
 * device's link (presence-leases.ts, its leases swept by every replica), and commands and channels for a device
 * whose link another replica holds, relayed to it (routing.ts to relay-endpoint.ts).
 */
export async function openClusterLinks(options: ClusterLinksOptions): Promise<ClusterLinks> {
  const { logger, engine } = options;
  const { unclaimedLinks: unclaimed } = options.coordination;
  const onError = (err: unknown, what: string): void => logger.error({ err }, `cluster links: ${what} failed`);
  const store = await options.coordination.openPresence((err) => onError(err, 'a presence connection'));
  let secret: string | undefined;
  let gateway: AgentGateway | undefined;
  let devices: ResourceHandle<Device> | undefined;
  const replica = randomUUID();
  const heartbeatMs = options.heartbeatSeconds * 1000;
  let stopSweep: (() => void) | undefined;
  const leaseMs = 1.5 * heartbeatMs;
  const presence = new PresenceLeases({
    store,
    replica,
    leaseMs,
    renewEveryMs: heartbeatMs / 2,
    releaseEnded: (links) =>
      releaseEndedLinks(
        {
          replica,
          devices: devices!,
          transaction: (fn) => engine.transaction(fn),
          unclaimed,
          writeQueuedStatus: (names) => requireGateway().writeQueuedStatus(names),
        },
        links,
      ),
    onTakenOver: (device) => gateway?.dropLink(device, 'replaced by a newer connection on another replica'),
    onLeaseLost: () => {
      logger.warn('cluster links: the presence lease lapsed; dropping every device link (they connect again)');
      for (const device of gateway?.linkedDevices() ?? []) gateway?.dropLink(device, 'presence lease lapsed');
    },
    onError,
  });
  const router = new CommandRouter({
    replica,
    locate: (device) => store.locate(device),
    secret: () => secret,
    ...(options.relayCa === undefined ? {} : { ca: options.relayCa }),
  });
  const endpoint = relayEndpoint({
    secret: () => secret,
    here: {
      sendCommand: (...args) => requireGateway().sendCommandHere(...args),
      openChannel: (...args) => requireGateway().channels.openHere(...args),
    },
    logger,
  });
  const requireGateway = (): AgentGateway => {
    if (gateway === undefined) throw new Error('the cluster links have not started');
    return gateway;
  };
  return {
    presence,
    elsewhere: router,
    upgrade: (req, socket, head) => endpoint.upgrade(req, socket, head),
    async start(url, linkedGateway, deviceHandle) {
      gateway = linkedGateway;
      devices = deviceHandle;
      secret = await store.clusterSecret();
      await presence.start(advertised(url));
      // every replica sweeps: presence must not wait for a live leader
      stopSweep = startPresenceSweep({
        store,
        everyMs: heartbeatMs / 2,
        markOffline: (expired) =>
          markLinksOffline({ devices: deviceHandle, transaction: (fn) => engine.transaction(fn), unclaimed }, expired),
        onError,
      });
    },
    async close() {
      stopSweep?.();
      router.close();
      endpoint.close();
      await presence.close();
      await store.close();
    },
  };
}

/** Where other replicas reach this one: its listening URL, an unspecified address replaced by the host's name. */
function advertised(url: string): string {
  const parsed = new URL(url);
  if (parsed.hostname === '0.0.0.0' || parsed.hostname === '[::]') parsed.hostname = hostname();
  return parsed.origin;
}
