import { createHash, randomBytes } from 'node:crypto';
import type { Hash } from 'node:crypto';
import { constants } from 'node:fs';
import { chmod, lstat, mkdir, open, rename, rm } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ApiError, failedPrecondition, internalError, invalidArgument } from '../../errors/api-error.js';
import { ConfinedTree } from './confined-tree.js';
import { belowRoot, rootOf } from './entry-path.js';
import { TransferDecoder, errorOfRecord } from './transfer-records.js';
import type { TransferEvent } from './transfer-records.js';
import { fsError } from './tree-sender.js';
import type { FileProgress } from './tree-sender.js';

/** The copied root as its first record announces it. */
export interface TreeRoot {
  name: string;
  kind: 'dir' | 'file';
}

export interface TreeWriterOptions {
  /** where the root lands (the path rules of the receiving side); may create or inspect directories */
  placeRoot(root: TreeRoot): Promise<string>;
  onProgress?(progress: FileProgress): void;
  /** told of every temporary file, so that one a killed process left behind can be found and removed later */
  partFiles?: PartFileRecord;
  /** the stream must carry one regular file and nothing else (a copy without -r) */
  singleFile?: boolean;
  /** refuse entries whose mode sets the user or group id (what a device sends to an operator's machine) */
  refuseSetIdModes?: boolean;
}

/** Keeps track of the temporary files a writer has on disk. */
export interface PartFileRecord {
  /** before the temporary file is created */
  add(path: string): Promise<void>;
  /** once it is renamed into place or removed */
  remove(path: string): Promise<void>;
}

export interface TreeSummary {
  files: number;
  bytes: number;
  /** where the root landed */
  destination: string;
  skipped: { path: string; reason: string }[];
}

interface OpenFile {
  entry: string;
  destination: string;
  temp: string;
  handle: FileHandle;
  hash: Hash;
  mode: number;
  size: number | undefined;
  done: number;
  /** bytes received but not written yet: written together, in fewer and larger writes */
  unwritten: Uint8Array[];
  unwrittenBytes: number;
  /** the batch being written while the next one arrives and is hashed (one at a time, in order) */
  writing: Promise<void>;
  /** bytes handed to writes so far */
  written: number;
  /** an early flush to disk of what was written up to `flushedTo`, running while more arrives */
  flushing: Promise<void> | undefined;
  flushedTo: number;
}

/** Temporary files are created, never opened: not through a link, not an existing FIFO or device. */
const TEMP_FILE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

const SET_ID_BITS = 0o6000;

/** Writes are gathered up to this size (a transfer arrives in pieces of 64 KiB to 1 MiB). */
const WRITE_BATCH_BYTES = 1024 * 1024;

/**
 * A large file is flushed to disk every this many bytes while it arrives, so that the flush before its rename
 * finds little left to write.
 */
const EARLY_FLUSH_BYTES = 64 * 1024 * 1024;

/**
 * Writes a transfer stream to disk, one event at a time. A file goes to a temporary file beside its
 * destination and is renamed into place only once its byte count and SHA-256 match, so an interrupted or
 * corrupted transfer never leaves a partial file where the real one belongs (`abort()` removes the temporary).
 * Entries below a directory root stay inside it (ConfinedTree): no link that exists there is written through.
 */
export class TreeWriter {
  private root: { name: string; kind: TreeRoot['kind']; destination: string; tree: ConfinedTree } | undefined;
  private current: OpenFile | undefined;
  private readonly directories: { path: string; mode: number }[] = [];
  private readonly skipped: { path: string; reason: string }[] = [];
  private files = 0;
  private bytes = 0;
  private summary: TreeSummary | undefined;

  constructor(private readonly options: TreeWriterOptions) {}

  /** the summary, once the end record was applied */
  get result(): TreeSummary | undefined {
    return this.summary;
  }

  async apply(event: TransferEvent): Promise<void> {
    switch (event.kind) {
      case 'dir':
        this.checkMode(event.path, event.mode);
        await this.makeDirectory(event.path, event.mode);
        return;
      case 'fileStart':
        this.checkMode(event.path, event.mode);
        await this.startFile(event.path, await this.fileDestination(event.path), event.mode, event.size);
        return;
      case 'fileData':
        await this.writeData(event.bytes);
        return;
      case 'fileEnd':
        await this.endFile(event.sha256, event.size);
        return;
      case 'skipped':
        this.skipped.push({ path: event.path, reason: event.reason });
        return;
      case 'error':
        throw errorOfRecord(event);
      case 'end':
        await this.end(event.files, event.bytes);
        return;
    }
  }

  /** Removes the file being written, if any (after a failure or an interruption). */
  async abort(): Promise<void> {
    const file = this.current;
    this.current = undefined;
    if (file === undefined) return;
    await file.writing.catch(() => undefined);
    await file.flushing?.catch(() => undefined);
    await file.handle.close().catch(() => undefined);
    await rm(file.temp, { force: true });
    await this.options.partFiles?.remove(file.temp);
  }

  private checkMode(entry: string, mode: number): void {
    if (this.options.refuseSetIdModes === true && (mode & SET_ID_BITS) !== 0) {
      throw failedPrecondition(
        `refused ${JSON.stringify(entry)}: its mode ${mode.toString(8).padStart(4, '0')} sets the user or group id`,
      );
    }
  }

  /** Places the root (its first record); answers where it lands. */
  private async placeRoot(entry: string, kind: TreeRoot['kind']): Promise<string> {
    const name = rootOf(entry);
    if (name !== entry) throw invalidArgument(`the transfer must begin with its root, not ${JSON.stringify(entry)}`);
    if (kind === 'dir' && this.options.singleFile === true) {
      throw failedPrecondition(
        `the transfer carries the directory ${JSON.stringify(entry)} where one file was asked for`,
      );
    }
    const destination = await this.options.placeRoot({ name, kind });
    this.root = { name, kind, destination, tree: new ConfinedTree(destination) };
    return destination;
  }

  /** The segments below the root of an entry after the first, which must be inside a directory root. */
  private belowTheRoot(entry: string): string[] {
    const root = this.root!;
    if (rootOf(entry) !== root.name || entry === root.name) {
      throw invalidArgument(`transfer entry ${JSON.stringify(entry)} is not inside ${JSON.stringify(root.name)}`);
    }
    if (root.kind === 'file') {
      throw invalidArgument(
        `transfer entry ${JSON.stringify(entry)} follows the single file ${JSON.stringify(root.name)}`,
      );
    }
    return belowRoot(entry);
  }

  private async fileDestination(entry: string): Promise<string> {
    if (this.root === undefined) {
      const destination = await this.placeRoot(entry, 'file');
      await makeParent(destination);
      return destination;
    }
    const below = this.belowTheRoot(entry);
    const parent = await this.root.tree.directory(below.slice(0, -1));
    return join(parent, below.at(-1)!);
  }

  private async makeDirectory(entry: string, mode: number): Promise<void> {
    if (this.root !== undefined) {
      const path = await this.root.tree.directory(this.belowTheRoot(entry), mode | 0o700);
      this.directories.push({ path, mode });
      return;
    }
    const path = await this.placeRoot(entry, 'dir');
    try {
      await mkdir(path, { recursive: true, mode: mode | 0o700 });
      if (!(await lstat(path)).isDirectory()) throw failedPrecondition(`${path} exists and is not a directory`);
    } catch (err) {
      if (isCode(err, 'EEXIST') || isCode(err, 'ENOTDIR')) {
        throw failedPrecondition(`${path} exists and is not a directory`);
      }
      throw fsError(err, path);
    }
    this.directories.push({ path, mode });
  }

  private async startFile(entry: string, destination: string, mode: number, size: number | undefined): Promise<void> {
    const existing = await lstat(destination).catch((err: unknown) => {
      if (isCode(err, 'ENOENT')) return undefined;
      throw fsError(err, destination);
    });
    if (existing?.isDirectory()) throw failedPrecondition(`${destination} is a directory`);
    if (existing && !existing.isFile() && !existing.isSymbolicLink()) {
      throw failedPrecondition(`${destination} exists and is not a regular file`);
    }
    const temp = join(dirname(destination), `.${basename(destination)}.${randomBytes(6).toString('hex')}.outpost-part`);
    await this.options.partFiles?.add(temp);
    let handle: FileHandle;
    try {
      handle = await open(temp, TEMP_FILE_FLAGS, 0o600);
    } catch (err) {
      await this.options.partFiles?.remove(temp);
      throw fsError(err, destination);
    }
    this.current = {
      entry,
      destination,
      temp,
      handle,
      hash: createHash('sha256'),
      mode,
      size,
      done: 0,
      unwritten: [],
      unwrittenBytes: 0,
      writing: Promise.resolve(),
      written: 0,
      flushing: undefined,
      flushedTo: 0,
    };
    this.progress(this.current, false);
  }

  private async writeData(bytes: Uint8Array): Promise<void> {
    const file = this.current;
    if (file === undefined) throw invalidArgument('file bytes outside a file');
    file.hash.update(bytes);
    file.unwritten.push(bytes);
    file.unwrittenBytes += bytes.length;
    file.done += bytes.length;
    if (file.unwrittenBytes >= WRITE_BATCH_BYTES) await this.startWrite(file);
    this.progress(file, false);
  }

  /** Writes what was gathered once the previous batch is written; does not wait for this one. */
  private async startWrite(file: OpenFile): Promise<void> {
    await file.writing;
    const pieces = file.unwritten;
    file.unwritten = [];
    file.unwrittenBytes = 0;
    const writing = writeAll(file.handle, pieces).catch((err: unknown) => {
      throw fsError(err, file.destination);
    });
    // a failure surfaces at the next write, at the file's end, or is dropped by abort()
    writing.catch(() => undefined);
    file.writing = writing;
    file.written += pieces.reduce((n, piece) => n + piece.length, 0);
    if (file.written - file.flushedTo >= EARLY_FLUSH_BYTES && file.flushing === undefined) this.flushEarly(file);
  }

  /** Flushes to disk what is written once the batch being written is, without waiting for it. */
  private flushEarly(file: OpenFile): void {
    file.flushedTo = file.written;
    const flushing: Promise<void> = file.writing
      .then(() => file.handle.datasync())
      .then(
        () => {
          if (file.flushing === flushing) file.flushing = undefined;
        },
        // a failure stays, to surface at the file's end (or be dropped by abort())
        (err: unknown) => {
          throw fsError(err, file.destination);
        },
      );
    flushing.catch(() => undefined);
    file.flushing = flushing;
  }

  private async endFile(sha256: string, size: number): Promise<void> {
    const file = this.current;
    if (file === undefined) throw invalidArgument('a hash record outside a file');
    const actual = file.hash.digest('hex');
    if (file.done !== size || (file.size !== undefined && file.size !== size)) {
      throw internalError(`${file.entry}: ${file.done} bytes arrived, the sender counted ${size}`);
    }
    if (actual !== sha256) {
      throw internalError(`${file.entry}: SHA-256 mismatch (sent ${sha256}, received ${actual})`);
    }
    await this.startWrite(file);
    await file.writing;
    await file.flushing;
    try {
      await file.handle.datasync();
      await file.handle.chmod(file.mode);
      await file.handle.close();
      await rename(file.temp, file.destination);
    } catch (err) {
      throw fsError(err, file.destination);
    }
    this.current = undefined;
    await this.options.partFiles?.remove(file.temp);
    this.files += 1;
    this.bytes += size;
    this.progress(file, true);
  }

  private async end(files: number, bytes: number): Promise<void> {
    if (this.root === undefined) throw invalidArgument('the transfer carried nothing');
    if (files !== this.files || bytes !== this.bytes) {
      throw internalError(
        `the sender counted ${files} files and ${bytes} bytes, ${this.files} and ${this.bytes} arrived`,
      );
    }
    // deepest first, so that a read-only directory does not stop its children from being set
    for (const dir of [...this.directories].reverse()) await chmod(dir.path, dir.mode).catch(() => undefined);
    this.summary = { files, bytes, destination: this.root.destination, skipped: this.skipped };
  }

  private progress(file: OpenFile, finished: boolean): void {
    this.options.onProgress?.({ path: file.entry, size: file.size ?? file.done, done: file.done, finished });
  }
}

/** Creates the directory a root file lands in, when missing (it is on the receiving side's own path). */
async function makeParent(destination: string): Promise<void> {
  const parent = dirname(destination);
  await mkdir(parent, { recursive: true }).catch((err: unknown) => {
    throw isCode(err, 'EEXIST') || isCode(err, 'ENOTDIR')
      ? failedPrecondition(`${parent} is not a directory`)
      : fsError(err, parent);
  });
}

/** Writes `pieces` at the file's current position, going on after short writes. */
async function writeAll(handle: FileHandle, pieces: Uint8Array[]): Promise<void> {
  let rest = pieces;
  while (rest.length > 0) {
    let { bytesWritten } = await handle.writev(rest);
    while (bytesWritten > 0 && rest.length > 0) {
      const first = rest[0]!;
      if (bytesWritten >= first.length) {
        bytesWritten -= first.length;
        rest = rest.slice(1);
      } else {
        rest = [first.subarray(bytesWritten), ...rest.slice(1)];
        bytesWritten = 0;
      }
    }
  }
}

/** Feeds a whole transfer stream to a writer; removes the partial file on any failure. */
export async function writeTree(pieces: AsyncIterable<Uint8Array>, writer: TreeWriter): Promise<TreeSummary> {
  const decoder = new TransferDecoder();
  try {
    for await (const piece of pieces) {
      for (const event of decoder.push(piece)) await writer.apply(event);
    }
    decoder.finish();
    const summary = writer.result;
    if (summary === undefined) throw invalidArgument('the transfer stream ended early');
    return summary;
  } catch (err) {
    await writer.abort();
    throw err instanceof ApiError ? err : fsError(err, 'transfer');
  }
}

const isCode = (err: unknown, code: string): boolean => (err as { code?: unknown } | null)?.code === code;
