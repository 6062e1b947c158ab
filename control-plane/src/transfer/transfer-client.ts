import { request as httpRequest } from 'node:http';
import type { ClientRequest, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { once } from 'node:events';
import {
  ApiError,
  TRANSFER_CONTENT_TYPE,
  encodeTree,
  unavailable,
  uploadSummarySchema,
  writeTree,
} from '@outpost/shared';
import type { FileProgress, TreeSource, TreeSummary, TreeWriter, UploadSummary } from '@outpost/shared';
import { ChunkPool } from './chunk-pool.js';

/** Where the command line sends transfers, and as whom. */
export interface TransferConnection {
  server: string;
  apiKey?: string;
  /** PEM of the CA certificates trusted for an https server (--ca-file), instead of the system's */
  ca?: string;
}

/** Keeps '/' (the device name is a path) and escapes the rest of each segment. */
const devicePath = (device: string, verb: string): string =>
  `/v1/${device
    .split('/')
    .map((s) => encodeURIComponent(s))
    .join('/')}:${verb}`;

/**
 * Uploads a prepared source to `{device}:upload` (what `outpost devices scp` does); answers the device's summary.
 * The file is read into a few buffers used over and over, each once the socket has taken it: a large upload
 * allocates next to no memory (and gives the garbage collector nothing to do).
 */
export async function uploadTree(
  connection: TransferConnection,
  device: string,
  remotePath: string,
  source: TreeSource,
  options: { onProgress?: (progress: FileProgress) => void; signal?: AbortSignal } = {},
): Promise<UploadSummary> {
  const chunks = new ChunkPool();
  const body = encodeTree(source, options.onProgress, chunks.allocate);
  return uploadTransfer(connection, device, remotePath, body, options.signal, chunks.release);
}

/**
 * POSTs a transfer stream to `{device}:upload`; answers the device's summary. `written` is told of each piece of
 * `body` once the socket has taken it.
 */
export async function uploadTransfer(
  connection: TransferConnection,
  device: string,
  remotePath: string,
  body: AsyncIterable<Uint8Array>,
  signal?: AbortSignal,
  written?: (piece: Uint8Array) => void,
): Promise<UploadSummary> {
  const response = await send(
    connection,
    'POST',
    `${devicePath(device, 'upload')}?${new URLSearchParams({ path: remotePath })}`,
    { 'content-type': TRANSFER_CONTENT_TYPE },
    { pieces: body, ...(written === undefined ? {} : { written }) },
    signal,
  );
  return uploadSummarySchema.parse(JSON.parse(await text(response)));
}

/** Downloads `{device}:download` into `writer` (what `outpost devices scp` does); answers what was written. */
export async function downloadTree(
  connection: TransferConnection,
  device: string,
  remotePath: string,
  recursive: boolean,
  writer: TreeWriter,
  signal?: AbortSignal,
): Promise<TreeSummary> {
  return writeTree(await downloadTransfer(connection, device, remotePath, recursive, signal), writer);
}

/** GETs `{device}:download` as a transfer stream. */
export function downloadTransfer(
  connection: TransferConnection,
  device: string,
  remotePath: string,
  recursive: boolean,
  signal?: AbortSignal,
): Promise<IncomingMessage> {
  const query = new URLSearchParams({ path: remotePath, ...(recursive ? { recursive: 'true' } : {}) });
  return send(
    connection,
    'GET',
    `${devicePath(device, 'download')}?${query}`,
    { accept: TRANSFER_CONTENT_TYPE },
    undefined,
    signal,
  );
}

/** GETs `{device}:collectDebugBundle`: a tar.gz stream. */
export function debugBundleDownload(
  connection: TransferConnection,
  device: string,
  signal?: AbortSignal,
): Promise<IncomingMessage> {
  return send(
    connection,
    'GET',
    devicePath(device, 'collectDebugBundle'),
    { accept: 'application/gzip' },
    undefined,
    signal,
  );
}

/** The file name a response suggests (content-disposition), if any. */
export function suggestedFileName(response: IncomingMessage): string | undefined {
  const match = /filename="([^"/\\]+)"/.exec(response.headers['content-disposition'] ?? '');
  return match?.[1];
}

/**
 * One HTTP request through node:http (no buffering of the body: it is piped with backpressure); a non-2xx
 * answer throws its ApiError, a network failure UNAVAILABLE.
 */
/** A request body, and whom to tell as each piece is handed to the socket. */
interface RequestBody {
  pieces: AsyncIterable<Uint8Array>;
  written?: (piece: Uint8Array) => void;
}

async function send(
  connection: TransferConnection,
  method: string,
  path: string,
  headers: OutgoingHttpHeaders,
  body: RequestBody | undefined,
  signal: AbortSignal | undefined,
): Promise<IncomingMessage> {
  const url = new URL(connection.server.replace(/\/+$/, '') + path);
  const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, {
    method,
    headers: {
      ...headers,
      'user-agent': 'outpost-cli',
      ...(connection.apiKey === undefined ? {} : { authorization: `Bearer ${connection.apiKey}` }),
    },
    ...(signal === undefined ? {} : { signal }),
    ...(connection.ca === undefined ? {} : { ca: connection.ca }),
  });
  const responded = new Promise<IncomingMessage>((resolve, reject) => {
    request.once('response', resolve);
    request.once('error', reject);
  });
  try {
    if (body === undefined) request.end();
    else await writeBody(request, body, responded);
    const response = await responded;
    const status = response.statusCode ?? 0;
    if (status < 200 || status >= 300) throw errorOf(await text(response), status);
    return response;
  } catch (err) {
    request.destroy();
    if (err instanceof ApiError || signal?.aborted) throw err;
    // the server may have answered (and closed) before it took the whole body: prefer its answer
    const early = await Promise.race([
      responded.catch(() => undefined),
      new Promise<undefined>((r) => setTimeout(() => r(undefined), 50)),
    ]);
    if (early !== undefined && (early.statusCode ?? 0) >= 400)
      throw errorOf(await text(early), early.statusCode ?? 500);
    throw unavailable(`cannot reach ${connection.server}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * Streams the body with backpressure, stopping early when the server already answered with an error (a refused
 * upload is not sent whole).
 */
async function writeBody(
  request: ClientRequest,
  body: RequestBody,
  responded: Promise<IncomingMessage>,
): Promise<void> {
  let refused = false;
  responded.then(
    (response) => (refused = (response.statusCode ?? 0) >= 300),
    () => undefined,
  );
  const { written } = body;
  for await (const chunk of body.pieces) {
    if (refused) return;
    const taken = (err?: Error | null): void => {
      if (!err) written?.(chunk);
    };
    if (!request.write(chunk, taken)) await Promise.race([once(request, 'drain'), responded]);
  }
  request.end();
}

async function text(response: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of response) parts.push(chunk as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

function errorOf(body: string, status: number): ApiError {
  try {
    return ApiError.fromBody(JSON.parse(body), status);
  } catch {
    return ApiError.fromBody({ error: { message: `HTTP ${status}: ${body.slice(0, 200)}` } }, status);
  }
}
