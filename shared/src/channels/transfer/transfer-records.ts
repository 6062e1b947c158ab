import { z } from 'zod';
import { ApiError, CANONICAL_CODES, invalidArgument } from '../../errors/api-error.js';
import type { CanonicalCode } from '../../errors/api-error.js';
import { checkEntryPath } from './entry-path.js';

/**
 * The stream a file transfer carries end to end (command line ⇄ control plane ⇄ device), one record after
 * another; each record is `type (1 byte) | length (uint32 BE) | JSON header`:
 *
 *   D {path, mode}            a directory
 *   F {path, mode, size?}     a regular file begins (`size`, when known, is what the H record will count)
 *   C <raw bytes>             the next bytes of that file (the length is the record's; no JSON)
 *   H {sha256, size}          the file ends: its byte count and hex SHA-256 (compared before renaming into place)
 *   S {path, reason}          an entry the sender left out (special file, symlink in a tree)
 *   E {status, message}       the sender failed (also between the chunks of a file); nothing follows
 *   Z {files, bytes}          the end: every entry was sent
 *
 * Entry paths are relative and start with the name of what is copied (`photos`, `photos/a.jpg`); the receiver
 * decides where that root lands (spec 000 "File transfer path rules").
 */
export const TRANSFER_CONTENT_TYPE = 'application/x-outpost-transfer';

const MAX_HEADER_BYTES = 64 * 1024;
const size = z.int().min(0).max(Number.MAX_SAFE_INTEGER);
const mode = z.int().min(0).max(0o7777);

const dirSchema = z.object({ path: z.string(), mode });
const fileSchema = z.object({ path: z.string(), mode, size: size.optional() });
const hashSchema = z.object({ sha256: z.string().regex(/^[0-9a-f]{64}$/), size });
const skippedSchema = z.object({ path: z.string(), reason: z.string() });
const errorSchema = z.object({ status: z.enum(CANONICAL_CODES), message: z.string() });
const endSchema = z.object({ files: z.int().min(0), bytes: size });

export type TransferEvent =
  | { kind: 'dir'; path: string; mode: number }
  | { kind: 'fileStart'; path: string; mode: number; size?: number }
  | { kind: 'fileData'; bytes: Uint8Array }
  | { kind: 'fileEnd'; sha256: string; size: number }
  | { kind: 'skipped'; path: string; reason: string }
  | { kind: 'error'; status: CanonicalCode; message: string }
  | { kind: 'end'; files: number; bytes: number };

const encoder = new TextEncoder();

/** the bytes before a record's header or raw bytes: type and length */
export const RECORD_PREFIX_BYTES = 5;

function prefix(type: string, length: number): Uint8Array {
  const bytes = new Uint8Array(RECORD_PREFIX_BYTES);
  bytes[0] = type.charCodeAt(0);
  new DataView(bytes.buffer).setUint32(1, length);
  return bytes;
}

function record(type: string, header: unknown): Uint8Array {
  const json = encoder.encode(JSON.stringify(header));
  const bytes = new Uint8Array(5 + json.length);
  bytes.set(prefix(type, json.length), 0);
  bytes.set(json, 5);
  return bytes;
}

export const encodeDir = (path: string, mode: number): Uint8Array => record('D', { path, mode });
export const encodeFileStart = (path: string, mode: number, size?: number): Uint8Array =>
  record('F', size === undefined ? { path, mode } : { path, mode, size });
/** The 5 bytes that precede `length` raw bytes of the current file. */
export const encodeChunkPrefix = (length: number): Uint8Array => prefix('C', length);
export const encodeFileEnd = (sha256: string, size: number): Uint8Array => record('H', { sha256, size });
export const encodeSkipped = (path: string, reason: string): Uint8Array => record('S', { path, reason });
export const encodeTransferError = (status: CanonicalCode, message: string): Uint8Array =>
  record('E', { status, message });
export const encodeEnd = (files: number, bytes: number): Uint8Array => record('Z', { files, bytes });

/** Where the decoder is: between records (in a file or not), inside a chunk's raw bytes, or past the end. */
type State = { at: 'record'; inFile: boolean } | { at: 'chunk'; remaining: number } | { at: 'done' };

/**
 * Parses a transfer stream fed in pieces of any size; refuses (INVALID_ARGUMENT) anything malformed,
 * including unsafe entry paths. File bytes are passed through as views of the input, never copied.
 */
export class TransferDecoder {
  private pending: Uint8Array = new Uint8Array(0);
  private state: State = { at: 'record', inFile: false };

  /** true after the end record or an error record */
  get ended(): boolean {
    return this.state.at === 'done';
  }

  push(piece: Uint8Array): TransferEvent[] {
    const events: TransferEvent[] = [];
    let input = concat(this.pending, piece);
    this.pending = new Uint8Array(0);
    while (input.length > 0) {
      const state = this.state;
      if (state.at === 'done') throw invalidArgument('the transfer stream continues after its end');
      if (state.at === 'chunk') {
        const n = Math.min(state.remaining, input.length);
        events.push({ kind: 'fileData', bytes: input.subarray(0, n) });
        input = input.subarray(n);
        this.state =
          state.remaining === n ? { at: 'record', inFile: true } : { at: 'chunk', remaining: state.remaining - n };
        continue;
      }
      if (input.length < RECORD_PREFIX_BYTES) break;
      const type = String.fromCharCode(input[0]!);
      const length = new DataView(input.buffer, input.byteOffset, RECORD_PREFIX_BYTES).getUint32(1);
      if (type === 'C') {
        if (!state.inFile) throw invalidArgument('file bytes outside a file');
        input = input.subarray(5);
        if (length > 0) this.state = { at: 'chunk', remaining: length };
        continue;
      }
      if (length > MAX_HEADER_BYTES) throw invalidArgument(`a transfer record header of ${length} bytes is too large`);
      if (input.length < 5 + length) break;
      events.push(this.interpret(type, readJson(input.subarray(5, 5 + length), type), state.inFile));
      input = input.subarray(5 + length);
    }
    this.pending = input.length > 0 ? input.slice() : input;
    return events;
  }

  /** Throws unless the stream reached its end record (or an error record). */
  finish(): void {
    if (this.state.at !== 'done') throw invalidArgument('the transfer stream ended early');
  }

  private interpret(type: string, header: unknown, inFile: boolean): TransferEvent {
    if (inFile && type !== 'H' && type !== 'E') throw invalidArgument('a file must end with its hash record');
    if (!inFile && type === 'H') throw invalidArgument('a hash record outside a file');
    switch (type) {
      case 'D': {
        const d = parse(dirSchema, header, type);
        return { kind: 'dir', path: checkEntryPath(d.path), mode: d.mode };
      }
      case 'F': {
        const f = parse(fileSchema, header, type);
        this.state = { at: 'record', inFile: true };
        const start = { kind: 'fileStart' as const, path: checkEntryPath(f.path), mode: f.mode };
        return f.size === undefined ? start : { ...start, size: f.size };
      }
      case 'H':
        this.state = { at: 'record', inFile: false };
        return { kind: 'fileEnd', ...parse(hashSchema, header, type) };
      case 'S': {
        const s = parse(skippedSchema, header, type);
        return { kind: 'skipped', path: checkEntryPath(s.path), reason: s.reason };
      }
      case 'E':
        this.state = { at: 'done' };
        return { kind: 'error', ...parse(errorSchema, header, type) };
      case 'Z':
        this.state = { at: 'done' };
        return { kind: 'end', ...parse(endSchema, header, type) };
      default:
        throw invalidArgument(`unknown transfer record type ${JSON.stringify(type)}`);
    }
  }
}

function readJson(bytes: Uint8Array, type: string): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw invalidArgument(`transfer record "${type}" has a malformed header`);
  }
}

function parse<T>(schema: z.ZodType<T>, header: unknown, type: string): T {
  const result = schema.safeParse(header);
  if (!result.success)
    throw invalidArgument(`transfer record "${type}" is invalid: ${result.error.issues[0]?.message}`);
  return result.data;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const all = new Uint8Array(a.length + b.length);
  all.set(a, 0);
  all.set(b, a.length);
  return all;
}

/** The ApiError an `E` record carries. */
export const errorOfRecord = (event: { status: CanonicalCode; message: string }): ApiError =>
  new ApiError(event.status, event.message);
