import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { RawData, WebSocket } from 'ws';
import {
  AGENT_CONNECT_PATH,
  ApiError,
  MAX_TEXT_FRAME_BYTES,
  LINK_PROOF_REFUSED_CLOSE_CODE,
  linkProofMessageSchema,
  parseAgentMessage,
  parseDeviceKeyClaim,
  parseLinkProofFrame,
  refusalOf,
  unauthenticated,
  unavailable,
} from '@outpost/shared';
import type {
  AgentMessage,
  AppliedHealthCheck,
  DesiredPod,
  Device,
  LinkChallengeMessage,
  OsImage,
  OsVersion,
  PodStatusMessage,
  ServerMessage,
} from '@outpost/shared';
import type { Logger } from '../server/logger.js';
import type { DeviceCredentials, UsedCredential } from '../devices/device-credentials.js';
import { newChallenge } from '../devices/device-identity.js';
import type { ResourceEngine } from '../resources/resource-engine.js';
import type { ResourceHandle } from '../resources/resource-handle.js';
import { where } from '../resources/resource-query.js';
import { AgentSession } from './agent-session.js';
import { CommandDispatcher } from './command-dispatcher.js';
import { StatusWriter } from './status-writer.js';
import { ChannelHub } from './channels/channel-hub.js';
import type { LinkPresence, LinksElsewhere } from './links-elsewhere.js';
import { EventLoopLag } from './event-loop-lag.js';
import { shedUpgrade } from './upgrade-shedding.js';

export interface AgentGatewayOptions {
  engine: ResourceEngine;
  devices: ResourceHandle<Device>;
  credentials: DeviceCredentials;
  logger: Logger;
  heartbeatSeconds: number;
  /**
   * After a crash no link survives, so devices still shown Online are marked Offline at start (default). Not so
   * when another control plane on the same PostgreSQL may hold their links (cluster/cluster-member.ts).
   */
  markOfflineAtStart?: boolean;
  /** the OS image a device's spec asks for, sent along with its spec */
  resolveOsImage?: (device: Device) => OsImage | undefined;
  /** followed so that publishing a version a device waits for reaches it at once */
  osVersions?: ResourceHandle<OsVersion>;
  /** the health checks that apply to a device, sent along with its spec */
  resolveHealthChecks?: (device: Device) => AppliedHealthCheck[];
  /** other records a spec message is made of (health checks): a change re-pushes the specs of the devices it concerns */
  specDependencies?: readonly SpecDependency[];
  /** the pods a device runs (spec.node), sent along with its spec */
  resolvePods?: (device: Device) => DesiredPod[];
  /** what an agent reports of its pods */
  onPodStatus?: (deviceName: string, pods: PodStatusMessage['pods']) => void;
  /** other WebSocket endpoints of the server (the remote terminal): true when one took the upgrade */
  otherUpgrades?: (req: IncomingMessage, socket: Duplex, head: Buffer) => boolean;
  /** on PostgreSQL, the shared record of which replica holds each device's link (cluster/presence-leases.ts) */
  presence?: LinkPresence;
  /** on PostgreSQL, the devices whose link another replica holds (cluster/routing.ts) */
  elsewhere?: LinksElsewhere;
  /** on PostgreSQL, the relay WebSocket of the other replicas (cluster/relay-endpoint.ts): true when it took one */
  clusterUpgrades?: (req: IncomingMessage, socket: Duplex, head: Buffer) => boolean;
  /**
   * New agent links are refused (503 with Retry-After) while the event loop lags this many milliseconds or more
   * (upgrade-shedding.ts); 0 or unset never refuses
   */
  shedUpgradesAtLagMs?: number;
}

/** Something besides the device record its spec message is made of. */
export interface SpecDependency {
  /** calls `listener` after each committed change, with a test of the devices the change concerns */
  subscribe(listener: (concerns: (device: Device) => boolean) => void): () => void;
}

/**
 * `GET /v1/agent:connect`: every device's one outbound WebSocket. Authenticates the device (its bearer credential,
 * its key's signature of a challenge it sends on the link (DEVICE_KEY_CLAIM_PREFIX), or of one from
 * `POST /v1/{device}:challenge`), keeps
 * only its newest connection, tracks Online/Offline with server pings, pushes the device's spec whenever it
 * changes (following the store's change feed) and writes what the agent reports, batched.
 */
export class AgentGateway {
  readonly commands = new CommandDispatcher();
  /** byte channels over the devices' links (file transfer, debug bundles) */
  readonly channels = new ChannelHub(
    (device, command, args, timeoutMs) => this.sendCommandHere(device, command, args, timeoutMs),
    undefined,
    () => this.options.elsewhere,
  );
  private readonly sessions = new Map<string, AgentSession>();
  private readonly wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    maxPayload: 4 * MAX_TEXT_FRAME_BYTES,
  });
  private readonly status: StatusWriter;
  private readonly heartbeat: NodeJS.Timeout;
  private readonly unsubscribe: () => void;
  private readonly unsubscribeVersions: () => void;
  private readonly unsubscribeDependencies: (() => void)[];
  private readonly unsubscribeRevocations: () => void;
  private readonly loopLag: EventLoopLag | undefined;
  private shedCount = 0;
  private shedSinceLog = 0;
  private shedLoggedAt = 0;

  constructor(private readonly options: AgentGatewayOptions) {
    if ((options.shedUpgradesAtLagMs ?? 0) > 0) this.loopLag = new EventLoopLag();
    this.status = new StatusWriter(options.devices, {
      onFlushFailed: (err, retryInMs) => options.logger.error({ err, retryInMs }, 'status write failed; retrying'),
    });
    if (options.markOfflineAtStart !== false) this.markAllOffline();
    this.heartbeat = setInterval(() => this.beat(), options.heartbeatSeconds * 1000);
    this.heartbeat.unref();
    this.unsubscribe = options.devices.subscribe((change) => {
      const session = this.sessions.get(change.name);
      if (!session) return;
      if (!change.after) {
        session.socket.close(4004, 'device deleted');
        return;
      }
      if (desiredChanged(change.before, change.after, change.changed)) session.send(this.specMessage(change.after));
    });
    this.unsubscribeVersions =
      options.osVersions?.subscribe((change) => {
        const published = change.after;
        if (!published) return;
        for (const session of this.sessions.values()) {
          const device = options.devices.find(session.deviceName);
          if (device && options.resolveOsImage?.(device)?.version === published.version) {
            session.send(this.specMessage(device));
          }
        }
      }) ?? (() => {});
    this.unsubscribeDependencies = (options.specDependencies ?? []).map((dependency) =>
      dependency.subscribe((concerns) => {
        for (const session of this.sessions.values()) {
          const device = options.devices.find(session.deviceName);
          if (device && concerns(device)) session.send(this.specMessage(device));
        }
      }),
    );
    this.unsubscribeRevocations = options.credentials.onRevoked((device, origin) => {
      // another replica's notice arrives late: the device may have linked here with the credential it announces
      if (origin === 'elsewhere' && this.stillAuthenticated(device)) return;
      this.disconnect(device, CREDENTIAL_REVOKED_CLOSE_CODE, 'device credential revoked');
    });
  }

  /** Takes over HTTP upgrades of the agent path on this server. */
  attach(server: Server): void {
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const path = (req.url ?? '').split('?')[0];
      if (path !== AGENT_CONNECT_PATH) {
        if (this.options.clusterUpgrades?.(req, socket, head) === true) return;
        if (this.options.otherUpgrades?.(req, socket, head) === true) return;
        refuseUpgrade(socket, new ApiError('NOT_FOUND', `no WebSocket endpoint at ${path}`));
        return;
      }
      // the agent gave up while this upgrade waited its turn: nothing to authenticate it for
      if (socket.destroyed || !socket.writable) {
        socket.destroy();
        return;
      }
      if (this.shedding(socket)) return;
      let caller: LinkCaller;
      try {
        caller = this.authenticate(req.headers.authorization);
      } catch (err) {
        refuseUpgrade(socket, err instanceof ApiError ? err : unauthenticated('cannot authenticate'));
        return;
      }
      this.wss.handleUpgrade(req, socket, head, (ws) =>
        caller.challenge ? this.challenge(caller.deviceName, ws) : this.open(caller.deviceName, ws, caller.used),
      );
    });
  }

  /**
   * Closes the links whose credential no longer authenticates their device (revoked or replaced meanwhile),
   * telling `revoked` each device, a few links at a time with other work in between. For a replica that was
   * not told of revocations for a while: its LISTEN connection to the other replicas was lost.
   */
  async recheckCredentials(revoked: (deviceName: string) => void): Promise<void> {
    let checked = 0;
    for (const session of [...this.sessions.values()]) {
      // checked in the same turn as it is acted on: a newer link of the device may have replaced it meanwhile
      if (this.sessions.get(session.deviceName) !== session) continue;
      if (!this.stillAuthenticated(session.deviceName)) revoked(session.deviceName);
      if (++checked % RECHECK_CHUNK === 0) await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Whether the device's link here still authenticates with the credential it opened with (false without a link). */
  private stillAuthenticated(deviceName: string): boolean {
    const session = this.sessions.get(deviceName);
    return session !== undefined && this.options.credentials.stillAuthenticates(deviceName, session.credential);
  }

  /** new agent links refused with 503 because the event loop lagged (shedUpgradesAtLagMs) */
  get shedUpgrades(): number {
    return this.shedCount;
  }

  isOnline(deviceName: string): boolean {
    return this.sessions.has(deviceName);
  }

  /**
   * Sends a command over the device's live link, here or on the replica holding it; UNAVAILABLE when it is offline
   * or does not answer in time.
   */
  sendCommand(deviceName: string, command: string, args?: unknown, timeoutMs = 30_000): Promise<unknown> {
    const { elsewhere } = this.options;
    if (elsewhere !== undefined && !this.sessions.has(deviceName)) {
      return elsewhere.sendCommand(deviceName, command, args, timeoutMs);
    }
    return this.sendCommandHere(deviceName, command, args, timeoutMs);
  }

  /** Sends a command over the device's link on this replica only (UNAVAILABLE when it is not here). */
  sendCommandHere(deviceName: string, command: string, args?: unknown, timeoutMs = 30_000): Promise<unknown> {
    return this.commands.send(this.sessions.get(deviceName), deviceName, command, args, timeoutMs);
  }

  /**
   * Drops the device's link without marking it Offline: a newer link of it is held by another replica, or this
   * replica's presence lease lapsed (the device then connects again).
   */
  dropLink(deviceName: string, reason: string): void {
    const session = this.sessions.get(deviceName);
    if (!session) return;
    this.sessions.delete(deviceName);
    this.commands.onDisconnected(deviceName);
    this.channels.detach(deviceName, reason);
    session.retire(4001, reason);
    this.options.logger.child({ device: deviceName }).info(`agent link dropped: ${reason}`);
  }

  /**
   * Writes now the status edits still queued for these devices; false when that failed (they stay queued). The
   * presence record's release of ended links writes their Offline itself, after these (cluster/offline-marking.ts).
   */
  writeQueuedStatus(devices: readonly string[]): boolean {
    return this.status.flushDevices(devices);
  }

  /** The devices whose link this replica holds. */
  linkedDevices(): string[] {
    return [...this.sessions.keys()];
  }

  get connectedCount(): number {
    return this.sessions.size;
  }

  /** status write transactions since start */
  get statusWriteBatches(): number {
    return this.status.batches;
  }

  /** Closes every link (devices go Offline) and writes what is pending. */
  close(): void {
    clearInterval(this.heartbeat);
    this.loopLag?.stop();
    this.unsubscribe();
    this.unsubscribeVersions();
    for (const unsubscribe of this.unsubscribeDependencies) unsubscribe();
    this.unsubscribeRevocations();
    this.channels.closeAll();
    const now = new Date().toISOString();
    for (const session of this.sessions.values()) {
      session.retire(1001, 'server shutting down');
      this.status.connection(session.deviceName, 'DISCONNECTED', now);
    }
    this.sessions.clear();
    this.status.close();
    // a peer that does not answer the close handshake must not hold the shutdown up
    setTimeout(() => {
      for (const client of this.wss.clients) client.terminate();
    }, 2000).unref();
    this.wss.close();
  }

  /**
   * Ends the device's link now: it goes Offline, its commands and channels (transfers) fail at once, and what it
   * still sends until the close handshake ends is dropped.
   */
  private disconnect(deviceName: string, code: number, reason: string): void {
    const session = this.sessions.get(deviceName);
    if (!session) return;
    this.sessions.delete(deviceName);
    this.commands.onDisconnected(deviceName);
    this.channels.detach(deviceName, reason);
    this.linkEnded(deviceName);
    session.retire(code, reason);
    this.options.logger.child({ device: deviceName }).info({ code }, `agent disconnected: ${reason}`);
  }

  /** Refuses the upgrade with 503 and Retry-After when the event loop lags too far to answer it in time. */
  private shedding(socket: Duplex): boolean {
    const lagMs = this.loopLag?.lagMs ?? 0;
    const shed = shedUpgrade(lagMs, { maxLagMs: this.options.shedUpgradesAtLagMs ?? 0 });
    if (shed === undefined) return false;
    this.shedCount++;
    this.shedSinceLog++;
    const now = Date.now();
    if (now - this.shedLoggedAt >= SHED_LOG_EVERY_MS) {
      this.options.logger.warn(
        { lagMs: Math.round(lagMs), refused: this.shedSinceLog, retryAfterSeconds: shed.retryAfterSeconds },
        'the event loop lags: refusing new agent links with 503 and Retry-After',
      );
      this.shedLoggedAt = now;
      this.shedSinceLog = 0;
    }
    refuseUpgrade(socket, unavailable('the control plane is busy: connect again after Retry-After'), {
      'Retry-After': String(shed.retryAfterSeconds),
    });
    return true;
  }

  /** The device, and whether it is yet to prove it holds its key on the link (it sent only its name, odk1.…). */
  private authenticate(header: string | undefined): LinkCaller {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
    if (!token) {
      throw unauthenticated(
        'missing device credential: send "Authorization: Bearer <credential, odk1.<device> or signed challenge (odp1.…)>"',
      );
    }
    const claimed = parseDeviceKeyClaim(token);
    if (claimed !== undefined) {
      if (!this.options.credentials.hasPublicKey(claimed) || !this.options.devices.exists(claimed)) {
        throw unauthenticated('no device with a registered key pair by that name');
      }
      return { deviceName: claimed, challenge: true };
    }
    // a credential, or a one-time proof of the device's key (used up here, so a replay is refused)
    const authenticated = this.options.credentials.authenticate(token);
    if (!authenticated || !this.options.devices.exists(authenticated.device)) {
      throw unauthenticated('invalid or revoked device credential, or a challenge not signed by the device key');
    }
    return { deviceName: authenticated.device, challenge: false, used: authenticated.used };
  }

  /**
   * Sends a fresh challenge on the new link and opens the device's session once the link's first message signs
   * it with the device's key; anything else, or silence, closes the link (LINK_PROOF_REFUSED_CLOSE_CODE).
   */
  private challenge(deviceName: string, ws: WebSocket): void {
    const challenge = newChallenge();
    const refuse = (reason: string): void => {
      cleanUp();
      this.options.logger.child({ device: deviceName }).warn(`agent link refused: ${reason}`);
      ws.close(LINK_PROOF_REFUSED_CLOSE_CODE, reason);
    };
    const timer = setTimeout(() => refuse('no proof of the device key in time'), PROOF_TIMEOUT_MS);
    const onMessage = (data: RawData, isBinary: boolean): void => {
      cleanUp();
      if (ws.readyState !== ws.OPEN) return; // the agent left before its proof was read: no signature to check
      const proof = isBinary ? undefined : parseLinkProofFrame(rawText(data), linkProofMessageSchema);
      if (proof === undefined) {
        refuse('the first message must be the proof of the device key');
        return;
      }
      const signature = Buffer.from(proof.signature, 'base64url');
      const used = this.options.credentials.linkProofCredential(deviceName, challenge, signature);
      if (used === undefined) {
        refuse('the challenge is not signed by the device key');
        return;
      }
      ws.off('error', ignoreUnprovenLinkError);
      this.open(deviceName, ws, used);
    };
    const cleanUp = (): void => {
      clearTimeout(timer);
      ws.off('message', onMessage);
      ws.off('close', cleanUp);
    };
    ws.on('message', onMessage);
    ws.on('close', cleanUp);
    ws.on('error', ignoreUnprovenLinkError);
    const message: LinkChallengeMessage = { type: 'challenge', challenge };
    ws.send(JSON.stringify(message));
  }

  private open(deviceName: string, ws: WebSocket, credential: UsedCredential): void {
    if (ws.readyState !== ws.OPEN) return; // the agent left while its upgrade waited: it must not replace a live link
    const log = this.options.logger.child({ device: deviceName });
    const previous = this.sessions.get(deviceName);
    if (previous) {
      previous.retire(4001, 'replaced by a newer connection');
      this.commands.onDisconnected(deviceName);
    }
    const session = new AgentSession(deviceName, ws, credential);
    this.sessions.set(deviceName, session);
    this.channels.attach(deviceName, (frame, sent) => ws.readyState === ws.OPEN && (ws.send(frame, sent), true));
    const markOnline = (): void => this.status.connection(deviceName, 'CONNECTED', new Date().toISOString());
    if (this.options.presence === undefined) markOnline();
    else this.options.presence.connected(deviceName, markOnline);
    log.info('agent connected');
    session.send({
      type: 'welcome',
      deviceName,
      heartbeatSeconds: this.options.heartbeatSeconds,
      serverTime: new Date().toISOString(),
    });

    ws.on('message', (data: RawData, isBinary: boolean) => {
      // a replaced connection may go on sending until its close handshake ends: only the device's current one counts
      if (this.sessions.get(deviceName) !== session) return;
      session.lastSeen = Date.now();
      if (isBinary) {
        this.channels.route(deviceName, rawBytes(data));
        return;
      }
      const parsed = parseAgentMessage(rawText(data));
      if (!parsed.ok) {
        log.warn({ error: parsed.error }, 'refused an agent message');
        session.send(refusalOf(parsed));
        return;
      }
      try {
        this.handle(session, parsed.message, log);
      } catch (err) {
        // a message the server could not store (a full disk, say) is refused; it never takes the server down
        log.error({ err }, 'could not handle an agent message');
        session.send({
          type: 'error',
          status: 'UNAVAILABLE',
          message: 'the control plane could not store this message',
        });
      }
    });
    ws.on('close', (code: number) => {
      if (this.sessions.get(deviceName) !== session) return; // replaced, or closed by close()
      this.sessions.delete(deviceName);
      this.commands.onDisconnected(deviceName);
      this.channels.detach(deviceName);
      this.linkEnded(deviceName);
      log.info({ code }, 'agent disconnected');
    });
    ws.on('error', (err) => log.warn({ err }, 'agent link error'));
  }

  /** The device's link here ended: Offline, unless (on PostgreSQL) a newer link of it is held by another replica. */
  private linkEnded(deviceName: string): void {
    const time = new Date().toISOString();
    const markOffline = (): void => this.status.connection(deviceName, 'DISCONNECTED', time);
    if (this.options.presence === undefined) markOffline();
    else this.options.presence.disconnected(deviceName, markOffline);
  }

  private handle(session: AgentSession, message: AgentMessage, log: Logger): void {
    const name = session.deviceName;
    switch (message.type) {
      case 'hello':
        this.status.connection(name, 'CONNECTED', new Date().toISOString(), {
          version: message.agentVersion,
          bootId: message.bootId,
        });
        this.sendSpec(session);
        session.specSentForHello = true;
        return;
      case 'getSpec':
        if (session.specSentForHello) session.specSentForHello = false;
        else this.sendSpec(session);
        return;
      case 'status':
        // the message itself, not a copy without type and seq: the merge reads only the reported members
        this.status.report(name, message);
        return;
      case 'metrics': {
        const { type: _type, ...sample } = message;
        this.status.metrics(name, sample);
        return;
      }
      case 'result':
        this.commands.onResult(name, message);
        return;
      case 'podStatus':
        this.options.onPodStatus?.(name, message.pods);
        return;
      case 'pong':
        return;
      case 'error':
        log.warn({ status: message.status, message: message.message, refId: message.refId }, 'agent reported an error');
        return;
    }
  }

  private sendSpec(session: AgentSession): void {
    const doc = this.options.devices.find(session.deviceName);
    if (doc) session.send(this.specMessage(doc));
  }

  private specMessage(doc: Device): ServerMessage {
    const meta = doc.metadata ?? {};
    const osImage = this.options.resolveOsImage?.(doc);
    const healthChecks = this.options.resolveHealthChecks?.(doc) ?? [];
    const pods = this.options.resolvePods?.(doc) ?? [];
    return {
      type: 'spec',
      device: {
        name: doc.name,
        spec: doc.spec ?? {},
        metadata: {
          generation: meta.generation ?? 0,
          ...(meta.labels ? { labels: meta.labels } : {}),
        },
        ...(osImage ? { osImage } : {}),
        ...(healthChecks.length > 0 ? { healthChecks } : {}),
        ...(pods.length > 0 ? { pods } : {}),
      },
    };
  }

  private beat(): void {
    const deadline = Date.now() - 2 * this.options.heartbeatSeconds * 1000;
    for (const session of this.sessions.values()) {
      if (session.lastSeen < deadline) {
        session.socket.terminate(); // two heartbeats without a word: the close handler marks it Offline
        continue;
      }
      session.send({ type: 'ping', nonce: randomUUID() });
    }
  }

  /** After a crash no link survives: nothing may stay Online from before this start. */
  private markAllOffline(): void {
    const stale = this.options.devices.names({ where: [where.equals('status.connectionStatus', 'CONNECTED')] });
    const now = new Date().toISOString();
    for (const name of stale) this.status.connection(name, 'DISCONNECTED', now);
    this.status.flush();
  }
}

/** The WebSocket close code of a link whose credential was revoked or rotated. */
export const CREDENTIAL_REVOKED_CLOSE_CODE = 4003;
/** How long a link challenged for its key has to answer. */
const PROOF_TIMEOUT_MS = 15_000;
/** At most one log line this often about refused links, with how many were refused since the last. */
const SHED_LOG_EVERY_MS = 10_000;
/** How many links recheckCredentials checks (one store read each) before it lets other work run. */
const RECHECK_CHUNK = 200;

/** Who opens an agent link: a device whose credential authenticated it, or one yet to prove it holds its key. */
type LinkCaller =
  { deviceName: string; challenge: false; used: UsedCredential } | { deviceName: string; challenge: true };

/**
 * Errors of a link that has not yet proven its key: the close that follows cleans up, and they are not worth a log
 * line. A function of its own, not a closure made in `challenge`: that one would keep the whole scope of the
 * challenge (its closures, its cleared timer, the challenge) alive as long as the link, for every device.
 */
const ignoreUnprovenLinkError = (): void => {};

/** The paths of what the agent acts on (below). */
const DESIRED_PATHS = ['spec', 'metadata.labels', 'status.deviceInfo.deviceType'];

/**
 * What the agent acts on: its spec, labels, and the device type its OS image is resolved for (other status
 * writes must not echo back). The changed paths decide when they are known: a change another replica made is
 * rebuilt from the current document, so its `before` has the same spec as its `after` (foreign-changes.ts).
 */
function desiredChanged(before: Device | null, after: Device, changed: readonly string[] | undefined): boolean {
  if (!before) return true;
  if (changed !== undefined) {
    return changed.some((path) =>
      DESIRED_PATHS.some((p) => path === p || path.startsWith(`${p}.`) || p.startsWith(`${path}.`)),
    );
  }
  const type = (d: Device): string | undefined => d.status?.deviceInfo?.deviceType;
  return (
    JSON.stringify(before.spec ?? {}) !== JSON.stringify(after.spec ?? {}) ||
    JSON.stringify(before.metadata?.labels ?? {}) !== JSON.stringify(after.metadata?.labels ?? {}) ||
    type(before) !== type(after)
  );
}

function rawBytes(data: RawData): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data);
  return data instanceof ArrayBuffer ? new Uint8Array(data) : data;
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data).toString('utf8');
}

/** Answers an upgrade request with the error instead (its JSON body, as any API error). */
export function refuseUpgrade(socket: Duplex, err: ApiError, headers: Readonly<Record<string, string>> = {}): void {
  // node's HTTP server stops handling the socket's errors once it hands the upgrade over: a client that resets
  // the connection meanwhile (it gave up waiting for the answer) must not take the server down
  socket.on('error', () => socket.destroy());
  const body = JSON.stringify(err.toBody());
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${err.httpCode} ${err.status}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}Connection: close\r\n\r\n${body}`,
  );
}
