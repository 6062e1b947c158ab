import { WebSocket } from 'ws';
import type { ClientOptions, RawData } from 'ws';
import {
  AGENT_CONNECT_PATH,
  DEAD_LINK_HEARTBEATS,
  LINK_PROOF_REFUSED_CLOSE_CODE,
  deviceProofMessage,
  encodeMessage,
  formatDeviceKeyClaim,
  linkChallengeMessageSchema,
  parseLinkProofFrame,
} from '@outpost/shared';
import type { AgentMessage, DeviceKey, HelloMessage, LinkProofMessage, WelcomeMessage } from '@outpost/shared';
import type { Logger } from '../logging/logger.js';
import { isUntrustedCertificate, transportTo } from '../config/transport-security.js';
import { proxiedConnection } from '../config-apply/proxy/proxy-route.js';
import type { ProxyChooser } from '../config-apply/proxy/proxy-route.js';
import type { Transport, TransportSecurity } from '../config/transport-security.js';
import { LINK_BACKOFF, createBackoff } from '../retry/backoff.js';
import type { Backoff, BackoffPolicy } from '../retry/backoff.js';
import { jitteredRetryAfterMs, retryAfterMs } from '../retry/retry-after.js';
import { ServerMessageRouter } from './server-message-router.js';
import type { CommandHandler, SpecConsumer } from './server-message-router.js';

/**
 * What a connection attempt authenticates with: a bearer token (a credential, or an `odp1` proof), or the
 * device's key, which signs the challenge the server sends on the new link (one connection, no extra request).
 */
export type LinkCredential = string | DeviceKeyIdentity;

export interface DeviceKeyIdentity {
  deviceName: string;
  key: DeviceKey;
}

export interface AgentLinkOptions {
  /** the control plane's base URL (http, https, ws or wss) */
  server: string;
  /** --insecure and --ca-file; plain ws:// to a server not on loopback is refused without --insecure */
  security?: TransportSecurity;
  /** read before every connection attempt, so a rotated credential or a new key is picked up */
  credential: () => Promise<LinkCredential>;
  /** the HTTP CONNECT proxy to reach the server through (spec.proxyConfig), asked before every attempt */
  proxy?: ProxyChooser;
  /** the identity part of `hello` (capabilities are added by the link) */
  hello: () => Pick<HelloMessage, 'agentVersion' | 'bootId'>;
  logger: Logger;
  backoff?: BackoffPolicy;
  /** a connection open this long resets the backoff */
  stableAfterMs?: number;
  /** the slow retry after the server refused the credential (401/403) */
  unauthorizedRetryMs?: number;
  /** the heartbeat assumed until the server's welcome says otherwise */
  initialHeartbeatSeconds?: number;
  /** mean interval of the agent's own `getSpec` (jittered ±50%) */
  specRefreshMs?: number;
  handshakeTimeoutMs?: number;
  random?: () => number;
}

/** Frames above this close the socket; the protocol's own 1 MiB limit is enforced (and answered) by the parser. */
const MAX_SOCKET_PAYLOAD = 16 * 1024 * 1024;

/** The capabilities every agent has; command names are added. */
const BASE_CAPABILITIES = ['status', 'metrics', 'spec'];

/**
 * The agent's one outbound WebSocket to the control plane. Reconnects forever with full-jitter
 * backoff, answers pings, treats a silent server as dead, and hands validated messages to the
 * registered spec consumers and command handlers.
 */
export class AgentLink {
  private readonly router: ServerMessageRouter;
  private readonly backoff: Backoff;
  private readonly random: () => number;
  private readonly connectedListeners = new Set<(welcome: WelcomeMessage) => void>();
  private readonly disconnectedListeners = new Set<() => void>();
  private readonly binaryListeners = new Set<(frame: Uint8Array) => void>();
  private socket: WebSocket | undefined;
  private welcome: WelcomeMessage | undefined;
  private running = false;
  /** an attempt is between its start and its socket (reading the credential) */
  private attempting = false;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private watchdogTimer: NodeJS.Timeout | undefined;
  private specTimer: NodeJS.Timeout | undefined;
  private readonly transport: Transport;

  /** Throws ConfigError when the server is plain ws:// across a network and --insecure was not given. */
  constructor(private readonly options: AgentLinkOptions) {
    this.transport = transportTo(options.server, options.security ?? {});
    this.router = new ServerMessageRouter(options.logger);
    this.random = options.random ?? Math.random;
    this.backoff = createBackoff(options.backoff ?? LINK_BACKOFF, this.random);
  }

  get url(): string {
    return agentConnectUrl(this.options.server);
  }

  /** true between the server's welcome and the end of that connection */
  get connected(): boolean {
    return this.welcome !== undefined && this.socket?.readyState === WebSocket.OPEN;
  }

  get deviceName(): string | undefined {
    return this.welcome?.deviceName;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    void this.connect();
  }

  /** Closes the link and stops reconnecting. */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.reconnectTimer);
    const socket = this.socket;
    if (socket === undefined || socket.readyState === WebSocket.CLOSED) return;
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    if (socket.readyState === WebSocket.OPEN) socket.close(1000, 'agent stopping');
    else socket.terminate();
    const forced = setTimeout(() => socket.terminate(), 2_000);
    await closed;
    clearTimeout(forced);
  }

  /** Drops the connection, if any, and connects again at once (e.g. through a newly configured proxy). */
  reconnect(): void {
    if (!this.running) return;
    this.backoff.reset();
    if (this.socket !== undefined) {
      this.socket.terminate(); // its close schedules the next attempt
      return;
    }
    if (this.attempting) return; // it creates its socket with the settings of now
    clearTimeout(this.reconnectTimer);
    void this.connect();
  }

  /** Sends on the live connection; false (message dropped) while not connected. */
  send(message: AgentMessage): boolean {
    return this.connected && this.socket !== undefined && sendOn(this.socket, message);
  }

  /**
   * Sends one binary frame (channel data) on the live connection; false while not connected. `sent` is called once
   * the socket took the frame (or the connection failed first).
   */
  sendBinary(frame: Uint8Array, sent?: () => void): boolean {
    if (!this.connected || this.socket === undefined) return false;
    this.socket.send(frame, { binary: true }, sent);
    return true;
  }

  /** Receives every binary frame (the channel layer routes them). */
  onBinary(listener: (frame: Uint8Array) => void): () => void {
    this.binaryListeners.add(listener);
    return () => this.binaryListeners.delete(listener);
  }

  onConnected(listener: (welcome: WelcomeMessage) => void): () => void {
    this.connectedListeners.add(listener);
    return () => this.connectedListeners.delete(listener);
  }

  onDisconnected(listener: () => void): () => void {
    this.disconnectedListeners.add(listener);
    return () => this.disconnectedListeners.delete(listener);
  }

  /** Registers a consumer of the desired device (the seam for OS upgrade, workloads, ...). */
  addSpecConsumer(consumer: SpecConsumer): () => void {
    return this.router.addSpecConsumer(consumer);
  }

  setCommandHandler(command: string, handler: CommandHandler): () => void {
    return this.router.setCommandHandler(command, handler);
  }

  private async connect(): Promise<void> {
    if (!this.running) return;
    let credential: LinkCredential;
    this.attempting = true;
    try {
      credential = await this.options.credential();
    } catch (err) {
      this.options.logger.error({ err }, 'cannot read the device credential');
      this.scheduleReconnect(this.backoff.next());
      return;
    } finally {
      this.attempting = false;
    }
    if (!this.running) return;
    if (this.transport === 'insecure') {
      this.options.logger.warn(
        { url: this.url },
        'connecting without TLS to a server that is not on loopback (--insecure): the credential and all traffic cross the network in the clear',
      );
    }

    const ca = this.options.security?.ca;
    const { createConnection } = proxiedConnection(this.options.proxy, new URL(this.url));
    const socket = new WebSocket(this.url, {
      ...(ca === undefined ? {} : { ca }),
      // ws types createConnection as net.createConnection; node (and ws, which passes it on) take the callback form
      ...(createConnection === undefined
        ? {}
        : { createConnection: createConnection as unknown as ClientOptions['createConnection'] }),
      headers: {
        authorization: `Bearer ${typeof credential === 'string' ? credential : formatDeviceKeyClaim(credential.deviceName)}`,
      },
      handshakeTimeout: this.options.handshakeTimeoutMs ?? 15_000,
      maxPayload: MAX_SOCKET_PAYLOAD,
      // A zero masking key leaves frames unmasked on both ends (no XOR over every byte of a transfer). Masking
      // protects proxies from scripts in browsers; this client is not one.
      generateMask: (mask: Buffer) => mask.fill(0),
    });
    this.socket = socket;
    let refusedWith: number | undefined;
    let retryAfter: number | undefined;
    let openedAt: number | undefined;
    let lastError: string | undefined;
    let untrusted = false;
    // with a key, the server's first message is its challenge, and nothing else counts until it is answered
    let proving = typeof credential === 'string' ? undefined : credential;

    socket.on('unexpected-response', (_request, response) => {
      refusedWith = response.statusCode;
      const header = response.headers['retry-after'];
      retryAfter = retryAfterMs(Array.isArray(header) ? header[0] : header);
      response.resume();
      socket.terminate();
    });
    socket.on('open', () => {
      openedAt = Date.now();
      this.armWatchdog(socket, this.options.initialHeartbeatSeconds ?? 30);
      if (proving === undefined) this.sayHello(socket);
    });
    socket.on('message', (data, isBinary) => {
      this.armWatchdog(socket, this.welcome?.heartbeatSeconds ?? this.options.initialHeartbeatSeconds ?? 30);
      if (proving !== undefined) {
        const identity = proving;
        proving = undefined;
        void this.answerChallenge(socket, identity, isBinary ? undefined : textOf(data));
        return;
      }
      if (isBinary) {
        const frame = bytesOf(data);
        if (this.binaryListeners.size === 0) this.options.logger.debug('ignored a binary frame (no channel is open)');
        for (const listener of this.binaryListeners) this.notify(() => listener(frame));
        return;
      }
      this.router.handle(textOf(data), {
        reply: (message) => sendOn(socket, message),
        welcomed: (welcome) => this.welcomed(socket, welcome),
      });
    });
    socket.on('error', (err) => {
      lastError = err.message;
      untrusted = isUntrustedCertificate(err);
    });
    socket.on('close', (code, reason) => {
      this.closed(socket, {
        code,
        reason: reason.toString(),
        refusedWith,
        retryAfter,
        openedAt,
        lastError,
        untrusted,
      });
    });
  }

  private sayHello(socket: WebSocket): void {
    const capabilities = [...BASE_CAPABILITIES, ...this.router.commandNames];
    sendOn(socket, { type: 'hello', ...this.options.hello(), capabilities });
  }

  /** Signs the server's challenge with the device key and says hello right behind the proof (no round trip). */
  private async answerChallenge(
    socket: WebSocket,
    identity: DeviceKeyIdentity,
    text: string | undefined,
  ): Promise<void> {
    const challenge = text === undefined ? undefined : parseLinkProofFrame(text, linkChallengeMessageSchema);
    if (challenge === undefined) {
      this.options.logger.warn("the control plane's first message is not a challenge for the device key");
      socket.terminate();
      return;
    }
    let signature: Buffer;
    try {
      signature = await identity.key.sign(deviceProofMessage(identity.deviceName, challenge.challenge));
    } catch (err) {
      this.options.logger.error({ err }, 'cannot sign with the device key');
      socket.terminate();
      return;
    }
    if (socket !== this.socket || socket.readyState !== WebSocket.OPEN) return;
    const proof: LinkProofMessage = { type: 'proof', signature: signature.toString('base64url') };
    socket.send(JSON.stringify(proof));
    this.sayHello(socket);
  }

  private welcomed(socket: WebSocket, welcome: WelcomeMessage): void {
    if (socket !== this.socket) return;
    const first = this.welcome === undefined;
    this.welcome = welcome;
    this.armWatchdog(socket, welcome.heartbeatSeconds);
    if (!first) return;
    this.options.logger.info({ deviceName: welcome.deviceName, url: this.url }, 'connected to the control plane');
    this.requestSpec(socket);
    for (const listener of this.connectedListeners) this.notify(() => listener(welcome));
  }

  /** Asks for the spec now and again on a jittered interval, so a lost push only delays. */
  private requestSpec(socket: WebSocket): void {
    clearTimeout(this.specTimer);
    if (socket !== this.socket || socket.readyState !== WebSocket.OPEN) return;
    sendOn(socket, { type: 'getSpec' });
    const meanMs = this.options.specRefreshMs ?? 5 * 60_000;
    this.specTimer = setTimeout(() => this.requestSpec(socket), meanMs * (0.5 + this.random()));
  }

  private armWatchdog(socket: WebSocket, heartbeatSeconds: number): void {
    clearTimeout(this.watchdogTimer);
    const silenceMs = heartbeatSeconds * DEAD_LINK_HEARTBEATS * 1000;
    this.watchdogTimer = setTimeout(() => {
      this.options.logger.warn({ silenceMs }, 'the server went silent; dropping the link');
      socket.terminate();
    }, silenceMs);
  }

  private closed(
    socket: WebSocket,
    how: {
      code: number;
      reason: string;
      refusedWith?: number;
      /** the wait the refusal's Retry-After asked for (a busy server answering 503) */
      retryAfter?: number;
      openedAt?: number;
      lastError?: string;
      untrusted: boolean;
    },
  ): void {
    if (socket !== this.socket) return;
    clearTimeout(this.watchdogTimer);
    clearTimeout(this.specTimer);
    this.socket = undefined;
    const wasConnected = this.welcome !== undefined;
    this.welcome = undefined;
    if (wasConnected) for (const listener of this.disconnectedListeners) this.notify(listener);
    if (!this.running) return;

    const { logger } = this.options;
    if (how.refusedWith === 401 || how.refusedWith === 403 || how.code === LINK_PROOF_REFUSED_CLOSE_CODE) {
      const delayMs = Math.round((this.options.unauthorizedRetryMs ?? 60_000) * (0.5 + this.random() / 2));
      logger.error(
        { httpStatus: how.refusedWith, reason: how.reason || undefined, retryInMs: delayMs },
        'the control plane refused the device credential; retrying slowly (the credential may be rotated)',
      );
      this.scheduleReconnect(delayMs);
      return;
    }
    if (how.openedAt !== undefined && Date.now() - how.openedAt >= (this.options.stableAfterMs ?? 10_000)) {
      this.backoff.reset();
    }
    const backoffMs = this.backoff.next();
    // a busy server's Retry-After is a floor, spread so that the agents it turned away do not return together
    const delayMs =
      how.retryAfter === undefined ? backoffMs : Math.max(backoffMs, jitteredRetryAfterMs(how.retryAfter, this.random));
    if (how.untrusted) {
      logger.error(
        { error: how.lastError, url: this.url, retryInMs: delayMs },
        "the control plane's TLS certificate is not trusted: give the CA that signed it with --ca-file; retrying",
      );
      this.scheduleReconnect(delayMs);
      return;
    }
    logger.warn(
      {
        code: how.code,
        reason: how.reason || undefined,
        httpStatus: how.refusedWith,
        error: how.lastError,
        retryInMs: delayMs,
      },
      wasConnected
        ? 'lost the link to the control plane; reconnecting'
        : 'cannot connect to the control plane; retrying',
    );
    this.scheduleReconnect(delayMs);
  }

  private scheduleReconnect(delayMs: number): void {
    clearTimeout(this.reconnectTimer);
    if (!this.running) return;
    this.reconnectTimer = setTimeout(() => void this.connect(), delayMs);
  }

  private notify(listener: () => void): void {
    try {
      listener();
    } catch (err) {
      this.options.logger.error({ err }, 'a link listener failed');
    }
  }
}

/** `<server>/v1/agent:connect` with the ws scheme matching the server's http scheme. */
export function agentConnectUrl(server: string): string {
  const url = new URL(server);
  if (url.protocol === 'http:') url.protocol = 'ws:';
  if (url.protocol === 'https:') url.protocol = 'wss:';
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${AGENT_CONNECT_PATH}`;
  url.search = '';
  url.hash = '';
  return url.toString();
}

function sendOn(socket: WebSocket, message: AgentMessage): boolean {
  if (socket.readyState !== WebSocket.OPEN) return false;
  socket.send(encodeMessage(message));
  return true;
}

function bytesOf(data: RawData): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data);
  return data instanceof ArrayBuffer ? new Uint8Array(data) : data;
}

function textOf(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}
