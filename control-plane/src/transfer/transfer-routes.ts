import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import express from 'express';
import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import {
  ApiError,
  DEFAULT_FLOW,
  DEVICE_PATTERN,
  TRANSFER_CONTENT_TYPE,
  TransferDecoder,
  deviceDefinition,
  encodeChunkPrefix,
  encodeEnd,
  encodeFileEnd,
  encodeFileStart,
  errorOfRecord,
  invalidArgument,
  notFound,
  permissionOf,
  uploadSummarySchema,
} from '@outpost/shared';
import type { Channel, Device } from '@outpost/shared';
import type { ChannelHub, OpenChannel } from '../gateway/channels/channel-hub.js';
import type { ResourceHandle } from '../resources/resource-handle.js';
import type { Logger } from '../server/logger.js';
import { abortWhenClientLeaves, drained, relayChannelToResponse } from './channel-relay.js';
import { attachmentDisposition } from './attachment-disposition.js';
import { readBatches } from './read-batches.js';

/** Spec 000 Authentication rule 2: file transfer needs this permission on the device's project. */
export const CONNECT_PERMISSION = 'services/proxies.outpost/permissions/projects.connect';
export const DEBUG_BUNDLE_PERMISSION = permissionOf(deviceDefinition, 'collectDebugBundle');

/** request bytes are relayed to the device in batches that, with one more socket read (64 KiB), fit one frame */
const RELAY_BATCH_BYTES = DEFAULT_FLOW.maxFrameBytes - 64 * 1024;

export interface TransferRoutesOptions {
  devices: ResourceHandle<Device>;
  /** the gateway's channels (bound late: the gateway is built after the routes) */
  channels: () => ChannelHub;
  authenticate: RequestHandler;
  authorize(principal: unknown, permission: string, resourceName: string): void;
  logger: Logger;
}

/** The byte endpoints (`/v1/{device}:{verb}`) and the HTTP methods each takes (the OpenAPI document lists them). */
export const TRANSFER_METHODS = {
  upload: ['POST', 'PUT'],
  download: ['GET'],
  collectDebugBundle: ['GET', 'POST'],
} as const satisfies Record<string, readonly string[]>;
type TransferVerb = keyof typeof TRANSFER_METHODS;

const ROUTE = new RegExp(
  `^/v1/(projects/[^/]+/regions/[^/]+/devices/[^/:]+):(${Object.keys(TRANSFER_METHODS).join('|')})$`,
);

/**
 * The byte endpoints of a device, relayed over a channel of its own connection (never buffered whole):
 *
 * - `POST /v1/{device}:upload?path=P` with a transfer stream (`application/x-outpost-transfer`, what the command
 *   line sends) or the raw bytes of one file (any other non-JSON type; `name=N` keeps it under that name in the
 *   directory P, `mode=0644` sets its mode), answering `{files, bytes, destination, skipped?}`.
 * - `GET /v1/{device}:download?path=P[&recursive=true]`: a transfer stream when the client accepts one, else the
 *   raw bytes of one file.
 * - `GET|POST /v1/{device}:collectDebugBundle`: a tar.gz of the device's logs and state.
 */
export function transferRoutes(options: TransferRoutesOptions): Router {
  const router = express.Router();
  router.use((req: Request, res: Response, next: NextFunction) => {
    const match = ROUTE.exec(req.path);
    if (match === null) return next();
    const [, encoded = '', verb = ''] = match;
    options.authenticate(req, res, (err?: unknown) => {
      if (err !== undefined) return next(err);
      const device = decodeURIComponent(encoded);
      handle(options, verb as TransferVerb, device, req, res).catch((failure: unknown) => {
        options.logger.warn({ err: failure, device, verb }, 'transfer failed');
        if (res.headersSent) {
          res.destroy();
          return;
        }
        next(failure);
      });
    });
  });
  return router;
}

async function handle(options: TransferRoutesOptions, verb: TransferVerb, device: string, req: Request, res: Response) {
  const ids = DEVICE_PATTERN.parse(device);
  if (ids === null) {
    const problem = DEVICE_PATTERN.problemWithName(device)?.message ?? 'is not a device name';
    throw invalidArgument(`invalid device name "${device}": ${problem}`);
  }
  const principal: unknown = res.locals['principal'];
  const methods: readonly string[] = TRANSFER_METHODS[verb];
  if (!methods.includes(req.method)) throw methodNotAllowed(req.method, verb);
  if (verb === 'collectDebugBundle') {
    options.authorize(principal, DEBUG_BUNDLE_PERMISSION, device);
    existing(options.devices, device);
    return debugBundle(options.channels(), device, res);
  }
  options.authorize(principal, CONNECT_PERMISSION, `projects/${ids['project']}`);
  if (verb === 'upload') return upload(options, device, req, res);
  return download(options, device, req, res);
}

async function upload(options: TransferRoutesOptions, device: string, req: Request, res: Response): Promise<void> {
  const query: Record<string, unknown> = req.query;
  const path = requiredString(query['path'], 'path');
  if (!path.startsWith('/')) throw invalidArgument(`the device path "${path}" must be absolute (start with /)`);
  if (req.is('application/json') || (req.body !== undefined && Object.keys(req.body as object).length > 0)) {
    throw invalidArgument(`upload the bytes as ${TRANSFER_CONTENT_TYPE} or application/octet-stream, not JSON`);
  }
  const raw = !req.is(TRANSFER_CONTENT_TYPE);
  const name = optionalString(query['name'], 'name');
  if (name !== undefined && (name === '' || name.includes('/') || name === '.' || name === '..')) {
    throw invalidArgument(`name "${name}" must be a plain file name`);
  }
  const destination = raw && name !== undefined ? `${path.replace(/\/*$/, '')}/` : path;
  existing(options.devices, device);
  const opened = await options.channels().open(device, 'transfer.upload', { path: destination });
  const stopWatching = abortWhenClientLeaves(res, opened.channel);
  try {
    const rawName = name ?? (path.replace(/\/+$/, '').split('/').at(-1) || 'upload');
    if (raw) await pump(rawFileStream(req, rawName, fileMode(query['mode']), contentLength(req)), opened.channel);
    else for await (const batch of readBatches(req, RELAY_BATCH_BYTES)) await opened.channel.write(batch);
    await opened.channel.end();
    const answer = JSON.parse(Buffer.from(await opened.channel.readAll()).toString('utf8')) as unknown;
    stopWatching();
    res.json(uploadSummarySchema.parse(answer));
  } catch (err) {
    stopWatching();
    opened.channel.abort(errorDetail(err));
    // answer now; the rest of the body is read and dropped, for clients that send it whole before they read
    req.resume();
    throw opened.channel.error ?? err;
  } finally {
    opened.release();
  }
}

async function download(options: TransferRoutesOptions, device: string, req: Request, res: Response): Promise<void> {
  const query: Record<string, unknown> = req.query;
  const path = requiredString(query['path'], 'path');
  const recursive = booleanOf(query['recursive'], 'recursive');
  const stream = (req.get('accept') ?? '').includes(TRANSFER_CONTENT_TYPE);
  if (recursive && !stream) {
    throw invalidArgument(`a directory downloads only as ${TRANSFER_CONTENT_TYPE} (outpost devices scp -r)`);
  }
  existing(options.devices, device);
  const opened = await options.channels().open(device, 'transfer.download', { path, recursive });
  const stopWatching = abortWhenClientLeaves(res, opened.channel);
  try {
    if (stream) {
      res.status(200).type(TRANSFER_CONTENT_TYPE);
      await relayChannelToResponse(opened.channel, res);
    } else {
      await relayRawFile(opened, res, downloadFileName(path));
    }
  } finally {
    stopWatching();
    opened.release();
  }
}

async function debugBundle(channels: ChannelHub, device: string, res: Response): Promise<void> {
  const opened = await channels.open(device, 'debug.bundle', {}, 120_000);
  const stopWatching = abortWhenClientLeaves(res, opened.channel);
  try {
    const id = device.split('/').at(-1) ?? 'device';
    const stamp = new Date()
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d+Z$/, 'Z');
    res.status(200).type('application/gzip');
    res.setHeader('content-disposition', `attachment; filename="outpost-debug-${id}-${stamp}.tar.gz"`);
    await relayChannelToResponse(opened.channel, res);
  } finally {
    stopWatching();
    opened.release();
  }
}

/** The name a downloaded file is offered under: the last segment of the requested path, never the device's. */
const downloadFileName = (path: string): string => path.replace(/\/+$/, '').split('/').at(-1) || 'download';

/**
 * One file's bytes, decoded from the transfer stream and checked against its SHA-256 on the way; a stream with
 * anything but that one file fails.
 */
async function relayRawFile(opened: OpenChannel, res: Response, name: string): Promise<void> {
  const decoder = new TransferDecoder();
  const hash = createHash('sha256');
  let started = false;
  try {
    for await (const piece of opened.channel) {
      for (const event of decoder.push(piece)) {
        if (event.kind === 'dir' || (event.kind === 'fileStart' && started)) {
          throw new ApiError('FAILED_PRECONDITION', 'the device sent more than the one file asked for');
        }
        if (event.kind === 'fileStart') {
          started = true;
          res.status(200).type('application/octet-stream');
          if (event.size !== undefined) res.setHeader('content-length', String(event.size));
          res.setHeader('content-disposition', attachmentDisposition(name));
          res.flushHeaders();
        } else if (event.kind === 'fileData') {
          hash.update(event.bytes);
          if (!res.write(event.bytes)) await drained(res);
        } else if (event.kind === 'fileEnd') {
          if (hash.digest('hex') !== event.sha256) throw new ApiError('INTERNAL', 'SHA-256 mismatch on the way');
        } else if (event.kind === 'error') {
          throw errorOfRecord(event);
        }
      }
    }
    decoder.finish();
  } catch (err) {
    opened.channel.abort(errorDetail(err));
    throw err instanceof ApiError ? err : (opened.channel.error ?? err);
  }
  res.end();
}

/**
 * Wraps a raw request body as the transfer stream of one file, as the request delivers it: each batch of its
 * chunks becomes one chunk record, written in one go (a frame or so).
 */
async function* rawFileStream(
  req: IncomingMessage,
  name: string,
  mode: number,
  size: number | undefined,
): AsyncGenerator<Uint8Array[]> {
  const hash = createHash('sha256');
  let total = 0;
  yield [encodeFileStart(name, mode, size)];
  for await (const batch of readBatches(req, RELAY_BATCH_BYTES)) {
    let length = 0;
    for (const chunk of batch) {
      hash.update(chunk);
      length += chunk.length;
    }
    total += length;
    yield [encodeChunkPrefix(length), ...batch];
  }
  yield [encodeFileEnd(hash.digest('hex'), total), encodeEnd(1, total)];
}

async function pump(pieces: AsyncIterable<Uint8Array[]>, channel: Channel): Promise<void> {
  for await (const piece of pieces) await channel.write(piece);
}

function existing(devices: ResourceHandle<Device>, device: string): void {
  if (devices.find(device) === undefined) throw notFound(`device "${device}" not found`);
}

function errorDetail(err: unknown): { status: ApiError['status']; message: string } {
  if (err instanceof ApiError) return { status: err.status, message: err.message };
  return { status: 'ABORTED', message: err instanceof Error ? err.message : String(err) };
}

const methodNotAllowed = (method: string, verb: string): ApiError =>
  new ApiError('UNIMPLEMENTED', `${method} is not supported on :${verb}`);

function requiredString(value: unknown, name: string): string {
  const text = optionalString(value, name);
  if (text === undefined || text === '') throw invalidArgument(`the query parameter "${name}" is required`);
  return text;
}

function optionalString(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalidArgument(`the query parameter "${name}" must be given once`);
  return value;
}

function booleanOf(value: unknown, name: string): boolean {
  const text = optionalString(value, name);
  if (text === undefined || text === '' || text === 'false') return false;
  if (text === 'true') return true;
  throw invalidArgument(`the query parameter "${name}" must be true or false`);
}

function fileMode(value: unknown): number {
  const text = optionalString(value, 'mode');
  if (text === undefined) return 0o644;
  if (!/^0?[0-7]{3,4}$/.test(text)) throw invalidArgument(`mode "${text}" must be octal, like 0644`);
  return parseInt(text, 8) & 0o7777;
}

function contentLength(req: IncomingMessage): number | undefined {
  const header = req.headers['content-length'];
  return header === undefined ? undefined : Number(header);
}
