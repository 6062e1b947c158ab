import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { RawData, WebSocket } from 'ws';
import {
  ApiError,
  DEFAULT_FORWARD_TARGETS,
  DEVICE_PATTERN,
  MAX_TRANSCRIPT_BYTES,
  TERMINAL_RECORD,
  TerminalRecordDecoder,
  decodeTerminalMessage,
  encodeTerminalMessage,
  encodeTerminalRecord,
  failedPrecondition,
  invalidArgument,
  notFound,
  permissionDenied,
  remoteAccessSchema,
  resourceExhausted,
  terminalExitSchema,
  unauthenticated,
} from '@outpost/shared';
import type { Channel, ChannelService, Device, RemoteAccess, TerminalArgs } from '@outpost/shared';
import type { ChannelHub, OpenChannel } from '../gateway/channels/channel-hub.js';
import { refuseUpgrade } from '../gateway/agent-gateway.js';
import type { ResourceHandle } from '../resources/resource-handle.js';
import type { Logger } from '../server/logger.js';
import { BatchingChannelWriter } from './batching-channel-writer.js';
import { SessionsByKey } from './sessions-by-key.js';
import type { RemoteSessionAudit, SessionEnd, SessionStart } from './remote-session-audit.js';

/** Spec 000 Authentication rule 2: the remote terminal (and port forwarding) need this on the device's project. */
export const CONNECT_PERMISSION = 'services/proxies.outpost/permissions/projects.connect';

/** A session's WebSocket that failed is closed with this code; the reason reads `STATUS: message`. */
export const SESSION_FAILED_CLOSE_CODE = 4000;

/** The client's WebSocket holding more than this unsent pauses the relay from the device (its channel then fills). */
const WS_BACKLOG_BYTES = 1024 * 1024;
/** Client messages waiting for the channel beyond this pause the client's WebSocket (TCP then slows the client). */
const PAUSE_AFTER_PENDING_WRITES = 16;
/** The subprotocol a browser sends its API key in (it cannot set an Authorization header): `bearer.<API key>`. */
const BEARER_PROTOCOL = /^bearer\.(.+)$/;
const BEARER_HEADER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

const ROUTE = /^\/v1\/(projects\/[^/]+\/regions\/[^/]+\/devices\/[^/:]+):(terminal|portForward)$/;

export interface RemoteAccessOptions {
  devices: ResourceHandle<Device>;
  channels: () => ChannelHub;
  audit: RemoteSessionAudit;
  /** the key's principal name, or undefined when the secret is no valid key */
  authenticate(secret: string): { principal: unknown; keyId: string } | undefined;
  authorize(principal: unknown, permission: string, resourceName: string): void;
  /**
   * Records a failed authentication of the request's source (the REST API's limiter): the seconds it must wait when
   * it failed too often, else undefined.
   */
  failedAuthentication?: (req: IncomingMessage) => number | undefined;
  /**
   * Subscribes to revocations of keys ('apiKeys/<id>', as `keyId`): a revoked key's open sessions end with
   * UNAUTHENTICATED, here and, told by another replica, there too.
   */
  onKeyRevoked?: (listener: (keyId: string) => void) => void;
  /** where the open sessions are registered by key (given: the server re-checks their keys; see SessionsByKey) */
  sessions?: SessionsByKey;
  logger: Logger;
}

interface SessionPlan {
  service: ChannelService;
  args: unknown;
  start: Omit<SessionStart, 'keyId'>;
  /** keep the session's output in its audit record */
  transcript?: boolean;
}

/**
 * The WebSocket endpoints of remote access (issue 21), each session a channel over the device's own link:
 *
 * - `GET /v1/{device}:terminal[?command=ARG&command=ARG...][&cols=C&rows=R[&term=T]]`: a shell (or the command) on
 *   the device, in a pseudo-terminal of that size when `cols` and `rows` are given; binary messages are terminal
 *   records (`type` byte, then payload; TERMINAL_RECORD).
 * - `GET /v1/{device}:portForward?host=H&port=P`: one TCP connection from the device to H:P; binary messages are
 *   its bytes.
 *
 * Authenticated with `Authorization: Bearer <key>`, or the subprotocol `bearer.<key>` (browsers). Refusals come
 * before the upgrade, as the HTTP error of any API call; a session that fails later closes with
 * SESSION_FAILED_CLOSE_CODE. Every session leaves a RemoteSession audit record.
 */
export function remoteAccessEndpoint(
  options: RemoteAccessOptions,
): (req: IncomingMessage, socket: Duplex, head: Buffer) => boolean {
  const wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    maxPayload: 2 * 1024 * 1024,
    // a browser needs one of its subprotocols echoed: another than the one carrying its key, when it offers one
    handleProtocols: (protocols) => [...protocols].find((p) => !BEARER_PROTOCOL.test(p)) ?? [...protocols][0] ?? false,
  });
  const open = options.sessions ?? new SessionsByKey();
  options.onKeyRevoked?.((keyId) => open.endAll(keyId, unauthenticated(`${keyId} was revoked`)));
  return (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://server');
    const match = ROUTE.exec(url.pathname);
    if (match === null) return false;
    const [, encoded = '', verb = ''] = match;
    const device = decodeURIComponent(encoded);
    prepare(options, req, device, verb, url.searchParams)
      .then(({ opened, start, transcript }) => {
        const abandon = (message: string): void => {
          opened.channel.abort({ status: 'ABORTED', message });
          opened.release();
        };
        // no session without its audit record: a failed write refuses the session
        let name: string;
        try {
          name = options.audit.started(start);
        } catch (err) {
          abandon('the session could not be recorded');
          throw err;
        }
        if (socket.destroyed) {
          abandon('the client went away');
          options.audit.ended(name, { ending: 'CLIENT_CLOSED', bytesIn: 0, bytesOut: 0 });
          return;
        }
        const forget = open.add(start.keyId, (error) =>
          opened.channel.abort({ status: error.status, message: error.message }),
        );
        wss.handleUpgrade(req, socket, head, (ws) => {
          const relayed =
            start.kind === 'TERMINAL'
              ? relayTerminal(ws, opened.channel, transcript)
              : relayForward(ws, opened.channel);
          relayed
            .then((end) => options.audit.ended(name, end))
            .catch((err: unknown) => options.logger.error({ err, device }, 'remote session audit failed'))
            .finally(() => {
              forget();
              opened.release();
            });
        });
      })
      .catch((err: unknown) => {
        const error = err instanceof ApiError ? err : new ApiError('INTERNAL', 'remote access failed');
        if (!(err instanceof ApiError)) options.logger.error({ err, device }, 'remote access failed');
        refuseUpgrade(socket, error);
      });
    return true;
  };
}

async function prepare(
  options: RemoteAccessOptions,
  req: IncomingMessage,
  device: string,
  verb: string,
  query: URLSearchParams,
): Promise<{ opened: OpenChannel; start: SessionStart; transcript: boolean }> {
  const ids = DEVICE_PATTERN.parse(device);
  if (ids === null) {
    throw invalidArgument(`invalid device name "${device}": ${DEVICE_PATTERN.problemWithName(device)?.message ?? ''}`);
  }
  const secret = secretOf(req);
  if (secret === undefined) {
    throw unauthenticated(
      'missing API key: send "Authorization: Bearer <API key>" or the subprotocol bearer.<API key>',
    );
  }
  const caller = options.authenticate(secret);
  if (caller === undefined) {
    const retryAfterSeconds = options.failedAuthentication?.(req);
    if (retryAfterSeconds !== undefined) {
      throw resourceExhausted(`too many failed authentications: retry in ${retryAfterSeconds} s`);
    }
    throw unauthenticated('invalid or revoked API key');
  }
  options.authorize(caller.principal, CONNECT_PERMISSION, `projects/${ids['project']}`);
  const doc = options.devices.find(device);
  if (doc === undefined) throw notFound(`device "${device}" not found`);
  const access: RemoteAccess = remoteAccessSchema.safeParse(doc.spec?.remoteAccess ?? {}).data ?? {};
  const plan = verb === 'terminal' ? terminalPlan(device, access, query) : forwardPlan(device, access, query);
  const opened = await options.channels().open(device, plan.service, plan.args);
  return { opened, start: { ...plan.start, keyId: caller.keyId }, transcript: plan.transcript === true };
}

function terminalPlan(device: string, access: RemoteAccess, query: URLSearchParams): SessionPlan {
  if (access.disableTerminal === true) {
    throw failedPrecondition(`the remote terminal is disabled on "${device}" (spec.remoteAccess.disableTerminal)`);
  }
  const command = query.getAll('command');
  const cols = query.get('cols');
  const rows = query.get('rows');
  const term = query.get('term');
  if ((cols === null) !== (rows === null)) throw invalidArgument('give both cols and rows, or neither (no terminal)');
  const args: TerminalArgs = {
    ...(command.length > 0 ? { command } : {}),
    ...(cols !== null && rows !== null
      ? { tty: { cols: sizeOf(cols, 'cols'), rows: sizeOf(rows, 'rows'), ...(term === null ? {} : { term }) } }
      : {}),
    ...(access.shellUser === undefined ? {} : { user: access.shellUser }),
  };
  return {
    service: 'remote.terminal',
    args,
    start: { device, kind: 'TERMINAL', command: command.length > 0 ? command.join(' ') : 'interactive' },
    transcript: access.recordTranscripts === true,
  };
}

function forwardPlan(device: string, access: RemoteAccess, query: URLSearchParams): SessionPlan {
  if (access.disablePortForward === true) {
    throw failedPrecondition(`port forwarding is disabled on "${device}" (spec.remoteAccess.disablePortForward)`);
  }
  const host = query.get('host');
  if (host === null || host === '') throw invalidArgument('the query parameter "host" is required');
  const port = Number(query.get('port'));
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw invalidArgument('"port" must be 1 to 65535');
  const allowedTargets = [...(access.forwardTargets ?? DEFAULT_FORWARD_TARGETS)];
  if (!allowedTargets.includes(host)) {
    throw permissionDenied(
      `"${device}" forwards only to ${allowedTargets.join(', ')} (spec.remoteAccess.forwardTargets), not to ${host}`,
    );
  }
  return {
    service: 'remote.forward',
    args: { host, port, allowedTargets },
    start: { device, kind: 'PORT_FORWARD', target: `${host}:${port}` },
  };
}

function sizeOf(text: string, name: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1 || value > 1000) throw invalidArgument(`"${name}" must be 1 to 1000`);
  return value;
}

function secretOf(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  if (header !== undefined && header.trim() !== '') return BEARER_HEADER.exec(header)?.[1] ?? '';
  for (const protocol of (req.headers['sec-websocket-protocol'] ?? '').split(',')) {
    const secret = BEARER_PROTOCOL.exec(protocol.trim())?.[1];
    if (secret !== undefined) return secret;
  }
  return undefined;
}

/** Relays terminal records between the client's WebSocket and the device's channel; answers how it ended. */
async function relayTerminal(ws: WebSocket, channel: Channel, keepTranscript: boolean): Promise<SessionEnd> {
  const counts = { bytesIn: 0, bytesOut: 0 };
  const transcript = keepTranscript ? new Transcript() : undefined;
  let exitCode: number | undefined;
  const fromClient = (data: RawData): Promise<void> | undefined => {
    const record = decodeTerminalMessage(bytesOf(data));
    if (record === undefined) return undefined;
    if (record.type === TERMINAL_RECORD.INPUT) counts.bytesIn += record.payload.length;
    else if (record.type !== TERMINAL_RECORD.RESIZE && record.type !== TERMINAL_RECORD.INPUT_END) return undefined;
    return channel.write(encodeTerminalRecord(record.type, record.payload));
  };
  const decoder = new TerminalRecordDecoder();
  const toClient = async (chunk: Uint8Array): Promise<void> => {
    for (const record of decoder.push(chunk)) {
      if (record.type === TERMINAL_RECORD.EXIT) {
        exitCode = terminalExitSchema.safeParse(JSON.parse(Buffer.from(record.payload).toString('utf8'))).data
          ?.exitCode;
      } else {
        // output that comes after the client went away is dropped, not counted as sent to it
        if (ws.readyState === ws.OPEN) counts.bytesOut += record.payload.length;
        transcript?.add(record.payload);
      }
      await sendToClient(ws, encodeTerminalMessage(record.type, record.payload));
    }
  };
  const ending = await relay(ws, channel, fromClient, toClient);
  return {
    ...ending,
    ...counts,
    ...(exitCode === undefined ? {} : { exitCode }),
    ...(transcript === undefined ? {} : transcript.result()),
  };
}

/** The first MAX_TRANSCRIPT_BYTES of a session's output. */
class Transcript {
  private readonly parts: Uint8Array[] = [];
  private bytes = 0;
  private truncated = false;

  add(payload: Uint8Array): void {
    const room = MAX_TRANSCRIPT_BYTES - this.bytes;
    if (payload.length > room) this.truncated = true;
    if (room <= 0) return;
    const kept = payload.subarray(0, room);
    this.parts.push(Uint8Array.from(kept));
    this.bytes += kept.length;
  }

  result(): { transcript: string; transcriptTruncated?: boolean } {
    const transcript = Buffer.concat(this.parts).toString('utf8');
    return this.truncated ? { transcript, transcriptTruncated: true } : { transcript };
  }
}

/** Relays a port forward's bytes between the client's WebSocket and the device's channel. */
async function relayForward(ws: WebSocket, channel: Channel): Promise<SessionEnd> {
  const counts = { bytesIn: 0, bytesOut: 0 };
  const toDevice = new BatchingChannelWriter(channel);
  const fromClient = (data: RawData): Promise<void> => {
    const bytes = bytesOf(data);
    // an empty message: the client's side of the connection ended (a half close)
    if (bytes.length === 0) return toDevice.end();
    counts.bytesIn += bytes.length;
    return toDevice.write(bytes);
  };
  const toClient = (chunk: Uint8Array): Promise<void> | undefined => {
    if (ws.readyState === ws.OPEN) counts.bytesOut += chunk.length;
    return sendToClient(ws, chunk);
  };
  const ending = await relay(ws, channel, fromClient, toClient);
  return { ...ending, ...counts };
}

/**
 * Both directions of a session: the client's messages into the channel (the socket paused while many writes wait
 * for credit), the channel's bytes to the client. The client's close ends its side (CLOSE); the device's end closes the
 * WebSocket; a failure on either side ends both.
 */
async function relay(
  ws: WebSocket,
  channel: Channel,
  fromClient: (data: RawData) => Promise<void> | undefined,
  toClient: (chunk: Uint8Array) => Promise<void> | undefined,
): Promise<Pick<SessionEnd, 'ending' | 'error'>> {
  let clientClosed = false;
  let done = false;
  let writes: Promise<void> = Promise.resolve();
  let pending = 0;
  ws.on('message', (data, isBinary) => {
    if (!isBinary) return;
    const written = fromClient(data);
    if (written === undefined) return;
    // the channel queues writes in order; the client is paused only while many wait for the device's credit
    pending++;
    if (pending === PAUSE_AFTER_PENDING_WRITES) ws.pause();
    const settled = (): void => {
      pending--;
      if (pending === PAUSE_AFTER_PENDING_WRITES - 1) ws.resume();
    };
    // a refused write (the channel failed or ended) ends the relay below; it must not leave the client paused
    writes = written.then(settled, settled);
  });
  ws.on('error', () => undefined);
  ws.once('close', () => {
    if (done) return;
    clientClosed = true;
    // what the client sent is delivered first; then the device learns its input ended, and the session ends
    void writes.then(() => channel.end()).catch(() => undefined);
    setTimeout(() => {
      if (!done) channel.abort({ status: 'ABORTED', message: 'the client went away' });
    }, 2_000).unref();
  });
  try {
    for await (const chunk of channel) {
      const full = toClient(chunk);
      if (full !== undefined) await full;
    }
  } catch (err) {
    done = true;
    const error = err instanceof ApiError ? err : new ApiError('INTERNAL', String(err));
    if (!clientClosed) ws.close(SESSION_FAILED_CLOSE_CODE, closeReason(error));
    if (clientClosed) return { ending: 'CLIENT_CLOSED' };
    return { ending: error.status === 'UNAVAILABLE' ? 'DEVICE_CLOSED' : 'FAILED', error: error.message };
  }
  done = true;
  // the device ended: this side ends too, after what the client sent (the device waits for it before it lets go)
  void writes.then(() => channel.end()).catch(() => undefined);
  if (clientClosed) return { ending: 'CLIENT_CLOSED' };
  ws.close(1000, 'ended');
  return { ending: 'EXITED' };
}

/** At most 123 bytes: a WebSocket close reason's limit. */
function closeReason(error: ApiError): string {
  const text = `${error.status}: ${error.message}`;
  return Buffer.from(text)
    .subarray(0, 120)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
}

/**
 * Sends to the client; while its WebSocket holds more than WS_BACKLOG_BYTES unsent, a promise that settles once the
 * socket took this message (and so everything before it): the relay from the device then waits, its channel fills.
 */
function sendToClient(ws: WebSocket, bytes: Uint8Array): Promise<void> | undefined {
  if (ws.readyState !== ws.OPEN) return undefined;
  if (ws.bufferedAmount <= WS_BACKLOG_BYTES) {
    ws.send(bytes, { binary: true });
    return undefined;
  }
  return new Promise((resolve) => {
    // the callback comes once the socket took the message, or failed it; a close settles the wait regardless
    const done = (): void => {
      ws.off('close', done);
      resolve();
    };
    ws.once('close', done);
    ws.send(bytes, { binary: true }, done);
  });
}

function bytesOf(data: RawData): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data);
  return data instanceof ArrayBuffer ? new Uint8Array(data) : data;
}
