import { createHash } from 'node:crypto';
import type { Hash } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { dirname } from 'node:path';
import { finished } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { createBackoff } from '../../retry/backoff.js';
import type { BackoffPolicy } from '../../retry/backoff.js';
import type { ConnectVia } from '../../config-apply/proxy/proxy-route.js';
import type { SlotTarget } from '../boot/slot-target.js';
import { ArtifactError } from './artifact-error.js';
import { statfsFreeSpace } from './free-space.js';
import type { FreeSpace } from './free-space.js';
import { SlotWriter } from './slot-writer.js';

export interface ImageDownload {
  url: URL;
  /** the Authorization header's value, read before every request (the credential may be rotated) */
  authorization: () => Promise<string>;
  image: { sha256: string; size: number };
  target: SlotTarget;
  /** bytes of the image already durably in the slot (from the persisted progress) */
  resumeFrom: number;
  signal?: AbortSignal;
  freeSpace?: FreeSpace;
  /** the bytes written so far (called often: throttle what you do with it) */
  onProgress?: (bytes: number) => void;
  /** a prefix of this many bytes is durably in the slot: persist it, to resume from there after a restart */
  onCheckpoint?: (bytes: number) => Promise<void>;
  /** a request failed and is retried after `delayMs` */
  onRetry?: (error: Error, delayMs: number, bytes: number) => void;
  /** default 2 s */
  checkpointIntervalMs?: number;
  /** a connection without data this long is dropped and retried; default 30 s */
  idleTimeoutMs?: number;
  /** retry delays; default 1 s doubling to 60 s, with jitter */
  backoff?: BackoffPolicy;
  /** PEM of the CA certificates trusted for an https server (--ca-file), instead of the system's */
  ca?: string;
  /** how a request is connected (through the device's proxy); default directly */
  connect?: ConnectVia;
}

/** The state of one download: the slot prefix written and its hash. */
interface Written {
  hash: Hash;
  position: number;
}

/**
 * Streams the image into the slot while hashing it, resuming with HTTP Range (`If-Range` on the image's
 * ETag) after a dropped connection and, from `resumeFrom`, after an agent restart. Node cannot serialize a
 * hash's state, so on a restart the already-written prefix is read back from the slot and hashed again.
 * Retries network and server errors forever (with backoff) until aborted; throws ArtifactError when the
 * artifact itself is unusable. Returns the SHA-256 digest of the whole image; the caller compares it and
 * checks the signature. Never touches anything but `target`.
 */
export async function downloadImage(download: ImageDownload): Promise<Buffer> {
  const { image, target } = download;
  const capacity = await target.capacity();
  if (image.size > capacity) {
    throw new ArtifactError(`the image (${image.size} bytes) is larger than slot ${target.slot} (${capacity} bytes)`);
  }
  if (target.growable) await mkdir(dirname(target.path), { recursive: true });
  const file = await open(
    target.path,
    target.growable ? constants.O_RDWR | constants.O_CREAT : constants.O_RDWR,
    0o644,
  );
  try {
    if (target.growable) await checkFreeSpace(file, download);
    const written: Written = { hash: createHash('sha256'), position: 0 };
    written.position = await hashPrefix(file, written.hash, Math.min(download.resumeFrom, image.size));
    const backoff = createBackoff(download.backoff ?? { baseMs: 1_000, capMs: 60_000 });
    while (written.position < image.size) {
      const before = written.position;
      const failure = await fetchInto(file, written, download);
      await download.onCheckpoint?.(written.position);
      if (failure === undefined) continue;
      if (download.signal?.aborted) throw download.signal.reason;
      if (written.position > before) backoff.reset();
      const delayMs = backoff.next();
      download.onRetry?.(failure, delayMs, written.position);
      await pause(delayMs, download.signal);
    }
    if (target.growable) await file.truncate(image.size);
    await file.sync();
    return written.hash.digest();
  } finally {
    await file.close();
  }
}

async function checkFreeSpace(file: FileHandle, download: ImageDownload): Promise<void> {
  const existing = (await file.stat()).size;
  const needed = download.image.size - Math.min(existing, download.image.size);
  const free = await (download.freeSpace ?? statfsFreeSpace)(dirname(download.target.path));
  if (needed > free) {
    throw new ArtifactError(
      `not enough free space for the image (${download.image.size} bytes) in slot ${download.target.slot}: ` +
        `${needed} more bytes needed, ${free} free`,
    );
  }
}

/** Hashes the first `length` bytes of the slot; returns how many it could read (the slot may be shorter). */
async function hashPrefix(file: FileHandle, hash: Hash, length: number): Promise<number> {
  const buffer = Buffer.allocUnsafe(4 * 1024 * 1024);
  let position = 0;
  while (position < length) {
    const { bytesRead } = await file.read(buffer, 0, Math.min(buffer.length, length - position), position);
    if (bytesRead === 0) break;
    hash.update(buffer.subarray(0, bytesRead));
    position += bytesRead;
  }
  return position;
}

/**
 * One request: writes what it receives at `written.position`. Returns undefined when the body was
 * received completely, the error when the request should be retried; throws ArtifactError.
 */
async function fetchInto(file: FileHandle, written: Written, download: ImageDownload): Promise<Error | undefined> {
  const { image } = download;
  let response: IncomingMessage;
  try {
    const headers: OutgoingHttpHeaders = {
      authorization: await download.authorization(),
      'accept-encoding': 'identity',
    };
    if (written.position > 0) {
      headers['range'] = `bytes=${written.position}-`;
      headers['if-range'] = `"${image.sha256}"`;
    }
    response = await get(download, headers);
  } catch (err) {
    return asError(err);
  }

  try {
    const retry = await checkAnswer(response, written, download);
    if (retry !== undefined) return retry;
  } catch (err) {
    response.destroy();
    throw err;
  }

  const writer = new SlotWriter(file, written.position, written.hash, image.size, download.onProgress);
  const checkpoints = checkpointer(file, writer, download);
  try {
    const sourceFailure = await pump(response, writer);
    written.position = writer.position;
    if (sourceFailure !== undefined) return sourceFailure;
    if (written.position < image.size) {
      throw new ArtifactError(
        `the artifact is truncated: the server sent ${written.position} of the image's ${image.size} bytes`,
      );
    }
    return undefined;
  } catch (err) {
    written.position = writer.position;
    if (isNoSpace(err)) throw new ArtifactError(`the slot ran out of space: ${asError(err).message}`);
    throw err;
  } finally {
    await checkpoints.stop();
  }
}

/** Checks the answer's status and range; returns an error to retry after, or undefined to read the body. */
async function checkAnswer(
  response: IncomingMessage,
  written: Written,
  download: ImageDownload,
): Promise<Error | undefined> {
  const { image } = download;
  const status = response.statusCode ?? 0;
  if (status === 200) {
    // a whole answer (no range, or the artifact changed): start over
    checkDeclaredSize(Number(response.headers['content-length'] ?? image.size), image.size);
    written.hash = createHash('sha256');
    written.position = 0;
  } else if (status === 206) {
    const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(response.headers['content-range'] ?? '');
    if (range === null || Number(range[1]) !== written.position) {
      response.destroy();
      written.hash = createHash('sha256');
      written.position = 0;
      return new Error(`unexpected Content-Range "${response.headers['content-range'] ?? ''}": starting over`);
    }
    checkDeclaredSize(Number(range[3]), image.size);
  } else {
    const body = await readSmallBody(response);
    if (status === 416) {
      throw new ArtifactError(
        `the artifact is truncated: the server has fewer bytes than the ${written.position} already received ` +
          `of ${image.size}`,
      );
    }
    const description = `HTTP ${status}${body === '' ? '' : `: ${body}`}`;
    if (status === 404 || status === 410)
      throw new ArtifactError(`the server has no artifact at ${download.url.pathname} (${description})`);
    if (status >= 400 && status < 500 && ![401, 403, 408, 429].includes(status)) {
      throw new ArtifactError(`the server refused the download (${description})`);
    }
    return new Error(`the server answered ${description}`);
  }
  return undefined;
}

/**
 * Pipes the body into the writer. When the body fails (connection lost), the writer is still ended
 * normally, so what it accepted is written; that failure is returned. A writer failure is thrown.
 */
async function pump(response: IncomingMessage, writer: SlotWriter): Promise<Error | undefined> {
  const writerFailed = new Promise<Error>((resolve) => writer.once('error', resolve));
  response.pipe(writer, { end: false });
  const outcome = await Promise.race([
    finished(response).then(
      () => ({ source: undefined }),
      (err: unknown) => ({ source: asError(err) }),
    ),
    writerFailed.then((err) => ({ writer: err })),
  ]);
  if ('writer' in outcome) {
    response.destroy();
    throw outcome.writer;
  }
  response.unpipe(writer);
  writer.end();
  await finished(writer);
  return outcome.source;
}

/** Every interval: fsync the slot, then report the prefix written before the fsync began. */
function checkpointer(file: FileHandle, writer: SlotWriter, download: ImageDownload): { stop(): Promise<void> } {
  let running: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    running = running
      .then(async () => {
        const durable = writer.position;
        await file.datasync();
        await download.onCheckpoint?.(durable);
      })
      .catch(() => undefined); // a failed checkpoint only means resuming from an earlier one
  }, download.checkpointIntervalMs ?? 2_000);
  return {
    async stop() {
      clearInterval(timer);
      await running;
      await file.datasync();
    },
  };
}

function checkDeclaredSize(declared: number, size: number): void {
  if (!Number.isFinite(declared) || declared === size) return;
  throw new ArtifactError(
    declared < size
      ? `the artifact is truncated: the server has ${declared} of the image's ${size} bytes`
      : `the artifact (${declared} bytes) is larger than the image's declared ${size} bytes`,
  );
}

function get(download: ImageDownload, headers: OutgoingHttpHeaders): Promise<IncomingMessage> {
  const { url, signal, ca } = download;
  const createConnection = download.connect?.(url);
  const idleTimeoutMs = download.idleTimeoutMs ?? 30_000;
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'GET',
      headers,
      ...(signal === undefined ? {} : { signal }),
      ...(ca === undefined ? {} : { ca }),
      ...(createConnection === undefined ? {} : { createConnection }),
    });
    req.setTimeout(idleTimeoutMs, () =>
      req.destroy(new Error(`no data from the server for ${idleTimeoutMs / 1000} s`)),
    );
    req.once('response', resolve);
    req.once('error', reject);
    req.end();
  });
}

/** The first KiB of an error answer (its JSON error message when there is one). */
async function readSmallBody(response: IncomingMessage): Promise<string> {
  let text = '';
  try {
    for await (const chunk of response) {
      text += (chunk as Buffer).toString('utf8');
      if (text.length > 1024) break;
    }
  } catch {
    // the body of an error answer is a courtesy
  }
  response.destroy();
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } };
    if (typeof parsed.error?.message === 'string') return parsed.error.message;
  } catch {
    // not JSON
  }
  return text.slice(0, 200).trim();
}

/** Waits, or rejects with the signal's reason once it is aborted. */
async function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  try {
    await sleep(ms, undefined, signal === undefined ? {} : { signal });
  } catch (err) {
    throw signal?.aborted === true ? signal.reason : err;
  }
}

const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));

const isNoSpace = (err: unknown): boolean =>
  typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'ENOSPC';
