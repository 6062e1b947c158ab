import { createHash } from 'node:crypto';
import { lstat, open, readdir, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import {
  ApiError,
  failedPrecondition,
  invalidArgument,
  notFound,
  permissionDenied,
  unavailable,
} from '../../errors/api-error.js';
import { lastSegment } from './entry-path.js';
import {
  RECORD_PREFIX_BYTES,
  encodeChunkPrefix,
  encodeDir,
  encodeEnd,
  encodeFileEnd,
  encodeFileStart,
  encodeSkipped,
  encodeTransferError,
} from './transfer-records.js';

/**
 * A file travels in chunk records of this size at most (prefix included), so that each is one channel frame
 * (DEFAULT_FLOW.maxFrameBytes).
 */
export const CHUNK_RECORD_BYTES = 1024 * 1024;

/** What a sender found at its source path, checked before anything is sent. */
export interface TreeSource {
  path: string;
  /** the name the copied root travels under */
  rootName: string;
  kind: 'file' | 'dir';
  /** for a file: its size */
  size: number;
}

/** How far one file has been read (for progress bars). */
export interface FileProgress {
  path: string;
  size: number;
  done: number;
  finished: boolean;
}

/**
 * Checks a source before a transfer starts: it must exist and be a regular file, or a directory when
 * `recursive`. A symlink given by name is followed (as cp and scp do); special files are refused.
 */
export async function prepareTreeSource(path: string, recursive: boolean): Promise<TreeSource> {
  let info: Stats;
  try {
    info = await stat(path);
  } catch (err) {
    throw fsError(err, path);
  }
  const rootName = lastSegment(path) || 'root';
  if (info.isDirectory()) {
    if (!recursive) throw failedPrecondition(`${path} is a directory (copy it with -r)`);
    return { path, rootName, kind: 'dir', size: 0 };
  }
  if (!info.isFile()) throw failedPrecondition(`${path} is not a regular file or directory`);
  return { path, rootName, kind: 'file', size: info.size };
}

/**
 * The memory each chunk record is read into (prefix and bytes, `length` in all): a fresh buffer unless the
 * consumer has a better place for it, like one it can send without copying (Channel.payloadBuffer) or reuse.
 */
export type ChunkAllocator = (length: number) => Uint8Array;

const freshBuffer: ChunkAllocator = (length) => Buffer.allocUnsafe(length);

/** What an encoder reports and where it reads to. */
interface EncodeContext {
  totals: { files: number; bytes: number };
  onProgress: (progress: FileProgress) => void;
  allocate: ChunkAllocator;
}

/**
 * The transfer stream of a prepared source, produced as it is read (a consumer pulling slowly reads the disk
 * slowly). Inside a tree, symlinks and special files are left out with a skipped record; a failure ends the
 * stream with an error record, never in the middle of a chunk.
 */
export async function* encodeTree(
  source: TreeSource,
  onProgress: (progress: FileProgress) => void = () => {},
  allocate: ChunkAllocator = freshBuffer,
): AsyncGenerator<Uint8Array, void, undefined> {
  const context: EncodeContext = { totals: { files: 0, bytes: 0 }, onProgress, allocate };
  const { totals } = context;
  try {
    if (source.kind === 'file') {
      yield* encodeFile(source.path, source.rootName, await stat(source.path), context);
    } else {
      yield* encodeDirectory(source.path, source.rootName, await stat(source.path), context);
    }
  } catch (err) {
    const failure = err instanceof ApiError ? err : fsError(err, source.path);
    yield encodeTransferError(failure.status, failure.message);
    return;
  }
  yield encodeEnd(totals.files, totals.bytes);
}

async function* encodeDirectory(
  path: string,
  entry: string,
  info: Stats,
  context: EncodeContext,
): AsyncGenerator<Uint8Array, void, undefined> {
  yield encodeDir(entry, info.mode & 0o7777);
  let names: string[];
  try {
    names = (await readdir(path)).sort();
  } catch (err) {
    throw fsError(err, path);
  }
  for (const name of names) {
    const childPath = join(path, name);
    const childEntry = `${entry}/${name}`;
    let child: Stats;
    try {
      child = await lstat(childPath);
    } catch (err) {
      if (isCode(err, 'ENOENT')) continue; // removed while we walked
      throw fsError(err, childPath);
    }
    if (child.isDirectory()) yield* encodeDirectory(childPath, childEntry, child, context);
    else if (child.isFile()) yield* encodeFile(childPath, childEntry, child, context);
    else yield encodeSkipped(childEntry, child.isSymbolicLink() ? 'symbolic link' : 'not a regular file');
  }
}

async function* encodeFile(
  path: string,
  entry: string,
  info: Stats,
  { totals, onProgress, allocate }: EncodeContext,
): AsyncGenerator<Uint8Array, void, undefined> {
  let file: FileHandle;
  try {
    file = await open(path, 'r');
  } catch (err) {
    throw fsError(err, path);
  }
  let reading: Promise<Uint8Array> | undefined;
  try {
    const size = info.size;
    const hash = createHash('sha256');
    yield encodeFileStart(entry, info.mode & 0o7777, size);
    onProgress({ path: entry, size, done: 0, finished: false });
    let done = 0;
    reading = size > 0 ? ahead(readChunk(file, done, size, allocate)) : undefined;
    while (reading !== undefined) {
      const chunk = await reading;
      if (chunk.length === 0) throw failedPrecondition(`${path} shrank while it was being read`);
      done += chunk.length - RECORD_PREFIX_BYTES;
      // the next read runs while this chunk is hashed and sent
      reading = done < size ? ahead(readChunk(file, done, size, allocate)) : undefined;
      hash.update(chunk.subarray(RECORD_PREFIX_BYTES));
      yield chunk;
      onProgress({ path: entry, size, done, finished: false });
    }
    yield encodeFileEnd(hash.digest('hex'), size);
    totals.files += 1;
    totals.bytes += size;
    onProgress({ path: entry, size, done, finished: true });
  } finally {
    // never close the file under a read still running (the consumer may stop early)
    await reading?.catch(() => undefined);
    await file.close();
  }
}

/** A promise started ahead of its use: its failure surfaces where it is awaited, never as an unhandled rejection. */
function ahead<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

/**
 * The chunk record of `file` (`size` bytes long) at `position`, prefix and bytes in one buffer (no copy on the way
 * out); empty at the end of the file.
 */
async function readChunk(
  file: FileHandle,
  position: number,
  size: number,
  allocate: ChunkAllocator,
): Promise<Uint8Array> {
  const want = Math.min(CHUNK_RECORD_BYTES - RECORD_PREFIX_BYTES, size - position);
  const buffer = allocate(RECORD_PREFIX_BYTES + want);
  const { bytesRead } = await file.read(buffer, RECORD_PREFIX_BYTES, want, position);
  if (bytesRead === 0) return new Uint8Array(0);
  buffer.set(encodeChunkPrefix(bytesRead), 0);
  return buffer.subarray(0, RECORD_PREFIX_BYTES + bytesRead);
}

/** File system errors as API errors a user understands. */
export function fsError(err: unknown, path: string): ApiError {
  if (err instanceof ApiError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  switch (code) {
    case 'ENOENT':
      return notFound(`${path}: no such file or directory`);
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return permissionDenied(`${path}: permission denied${code === 'EROFS' ? ' (read-only file system)' : ''}`);
    case 'ENOTDIR':
      return failedPrecondition(`${path}: a part of the path is not a directory`);
    case 'EISDIR':
      return failedPrecondition(`${path} is a directory`);
    case 'ENOSPC':
      return new ApiError('RESOURCE_EXHAUSTED', `${path}: no space left on the device`);
    case 'ECONNRESET':
    case 'EPIPE':
    case 'ERR_STREAM_PREMATURE_CLOSE':
    case 'ABORT_ERR':
      return unavailable(`the transfer was interrupted (${String(code)})`);
    case 'ENAMETOOLONG':
      return invalidArgument(`${path}: name too long`);
    default:
      return new ApiError('INTERNAL', `${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

const isCode = (err: unknown, code: string): boolean => (err as { code?: unknown } | null)?.code === code;
