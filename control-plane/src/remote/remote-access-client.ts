import type { IncomingMessage } from 'node:http';
import { WebSocket } from 'ws';
import { ApiError, unavailable } from '@outpost/shared';
import type { TransferConnection } from '../transfer/transfer-client.js';

/** Keeps '/' (the device name is a path) and escapes the rest of each segment. */
const devicePath = (device: string, verb: string): string =>
  `/v1/${device
    .split('/')
    .map((s) => encodeURIComponent(s))
    .join('/')}:${verb}`;

/**
 * Opens a remote-access WebSocket (`{device}:terminal` or `:portForward`); resolves once it is open, paused (call
 * `resume()` once listening to its messages), or throws the server's refusal as its ApiError (PERMISSION_DENIED,
 * UNAVAILABLE for an offline device, ...).
 */
export function openRemoteSocket(
  connection: TransferConnection,
  device: string,
  verb: 'terminal' | 'portForward',
  query: URLSearchParams,
): Promise<WebSocket> {
  const base = new URL(connection.server.replace(/\/+$/, '') + devicePath(device, verb));
  base.protocol = base.protocol === 'https:' ? 'wss:' : 'ws:';
  base.search = query.toString();
  const ws = new WebSocket(base, {
    perMessageDeflate: false,
    // A zero masking key leaves frames unmasked on both ends (no XOR over every forwarded byte). Masking protects
    // proxies from scripts in browsers; this client is not one (the agent's link does the same).
    generateMask: (mask: Buffer) => mask.fill(0),
    headers: {
      'user-agent': 'outpost-cli',
      ...(connection.apiKey === undefined ? {} : { authorization: `Bearer ${connection.apiKey}` }),
    },
    ...(connection.ca === undefined ? {} : { ca: connection.ca }),
  });
  return new Promise((resolve, reject) => {
    ws.once('open', () => {
      // the server may send right behind its answer to the upgrade: nothing is emitted before the caller listens
      ws.pause();
      ws.removeAllListeners('error');
      ws.removeAllListeners('unexpected-response');
      resolve(ws);
    });
    ws.once('unexpected-response', (_req, res: IncomingMessage) => {
      // the refusal's body first: ending the socket makes the WebSocket fail with a message of its own
      void errorOfResponse(res).then((err) => {
        reject(err);
        ws.terminate();
      });
    });
    ws.once('error', (err) => reject(unavailable(`cannot reach ${connection.server}: ${err.message}`)));
  });
}

async function errorOfResponse(res: IncomingMessage): Promise<ApiError> {
  const parts: Buffer[] = [];
  for await (const chunk of res) parts.push(chunk as Buffer);
  const body = Buffer.concat(parts).toString('utf8');
  const status = res.statusCode ?? 500;
  try {
    return ApiError.fromBody(JSON.parse(body), status);
  } catch {
    return ApiError.fromBody({ error: { message: `HTTP ${status}: ${body.slice(0, 200)}` } }, status);
  }
}

/** A WebSocket closed with SESSION_FAILED_CLOSE_CODE carries `STATUS: message`: the error it names. */
export function errorOfClose(code: number, reason: string): ApiError | undefined {
  if (code === 1000) return undefined;
  const match = /^([A-Z_]+): (.*)$/s.exec(reason);
  if (code === 4000 && match !== null) {
    try {
      return ApiError.fromBody({ error: { status: match[1], message: match[2] } }, 500);
    } catch {
      // falls through to the generic message
    }
  }
  return unavailable(`the session's connection closed (${code}${reason === '' ? '' : `: ${reason}`})`);
}
