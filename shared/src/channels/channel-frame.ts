import { CANONICAL_CODES } from '../errors/api-error.js';
import type { CanonicalCode } from '../errors/api-error.js';

/**
 * One binary WebSocket frame of a channel (design.md "Agent protocol"):
 *
 *   byte 0      version (1)
 *   byte 1      kind: 1 DATA, 2 ACK, 3 CLOSE, 4 ERROR
 *   bytes 2-5   channel id (uint32, big endian)
 *   bytes 6-13  offset (uint64, big endian)
 *   bytes 14-   payload
 *
 * DATA: `offset` is the position of the payload's first byte in the sender's stream.
 * ACK: `offset` is how many bytes the receiver has consumed; the sender may have `window` bytes beyond it in flight.
 * CLOSE: the sender's stream ends at `offset` bytes (a half close; the other direction stays open).
 * ERROR: the channel failed; the payload is the JSON `{"status", "message"}`; both directions end.
 */
export const CHANNEL_FRAME_VERSION = 1;
export const CHANNEL_FRAME_HEADER_BYTES = 14;

export const CHANNEL_FRAME_KINDS = ['DATA', 'ACK', 'CLOSE', 'ERROR'] as const;
export type ChannelFrameKind = (typeof CHANNEL_FRAME_KINDS)[number];

export interface ChannelFrame {
  kind: ChannelFrameKind;
  channelId: number;
  offset: number;
  payload: Uint8Array;
}

export interface ChannelErrorDetail {
  status: CanonicalCode;
  message: string;
}

const MAX_CHANNEL_ID = 0xffff_ffff;
const EMPTY = new Uint8Array(0);

export function encodeChannelFrame(frame: ChannelFrame): Uint8Array {
  return encodeChannelFrameParts(frame.kind, frame.channelId, frame.offset, [frame.payload], frame.payload.length);
}

/**
 * One frame whose payload is the first `length` bytes of `parts` taken in order (copied once, straight into the
 * frame: no intermediate concatenation), in memory from `allocate` (not zero-filled: every byte is written).
 */
export function encodeChannelFrameParts(
  kind: ChannelFrameKind,
  channelId: number,
  offset: number,
  parts: readonly Uint8Array[],
  length: number,
  allocate: (bytes: number) => Uint8Array = (bytes) => Buffer.allocUnsafe(bytes),
): Uint8Array {
  const bytes = allocate(CHANNEL_FRAME_HEADER_BYTES + length);
  writeChannelFrameHeader(bytes, kind, channelId, offset);
  let at = CHANNEL_FRAME_HEADER_BYTES;
  for (const part of parts) {
    const take = Math.min(part.length, bytes.length - at);
    bytes.set(take === part.length ? part : part.subarray(0, take), at);
    at += take;
    if (at === bytes.length) break;
  }
  if (at !== bytes.length) throw new RangeError(`the parts hold fewer than ${length} bytes`);
  return bytes;
}

/** Writes a frame's header into the first CHANNEL_FRAME_HEADER_BYTES bytes of `frame`. */
export function writeChannelFrameHeader(
  frame: Uint8Array,
  kind: ChannelFrameKind,
  channelId: number,
  offset: number,
): void {
  if (!Number.isInteger(channelId) || channelId < 0 || channelId > MAX_CHANNEL_ID) {
    throw new RangeError(`channel id ${channelId} is not a uint32`);
  }
  if (!Number.isSafeInteger(offset) || offset < 0) throw new RangeError(`bad offset ${offset}`);
  const view = new DataView(frame.buffer, frame.byteOffset, CHANNEL_FRAME_HEADER_BYTES);
  view.setUint8(0, CHANNEL_FRAME_VERSION);
  view.setUint8(1, CHANNEL_FRAME_KINDS.indexOf(kind) + 1);
  view.setUint32(2, channelId);
  view.setBigUint64(6, BigInt(offset));
}

export type DecodedChannelFrame = { ok: true; frame: ChannelFrame } | { ok: false; error: string };

/** Reads one binary frame; never throws. The payload is a view into `bytes` (no copy). */
export function decodeChannelFrame(bytes: Uint8Array): DecodedChannelFrame {
  if (bytes.length < CHANNEL_FRAME_HEADER_BYTES) {
    return { ok: false, error: `channel frame too short: ${bytes.length} bytes` };
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint8(0);
  if (version !== CHANNEL_FRAME_VERSION) return { ok: false, error: `unknown channel frame version ${version}` };
  const kind = CHANNEL_FRAME_KINDS[view.getUint8(1) - 1];
  if (kind === undefined) return { ok: false, error: `unknown channel frame kind ${view.getUint8(1)}` };
  const offset = view.getBigUint64(6);
  if (offset > BigInt(Number.MAX_SAFE_INTEGER)) return { ok: false, error: 'channel frame offset too large' };
  const payload = bytes.subarray(CHANNEL_FRAME_HEADER_BYTES);
  if (kind !== 'DATA' && kind !== 'ERROR' && payload.length > 0) {
    return { ok: false, error: `a ${kind} frame carries no payload` };
  }
  return { ok: true, frame: { kind, channelId: view.getUint32(2), offset: Number(offset), payload } };
}

export const dataFrame = (channelId: number, offset: number, payload: Uint8Array): ChannelFrame => ({
  kind: 'DATA',
  channelId,
  offset,
  payload,
});

export const ackFrame = (channelId: number, offset: number): ChannelFrame => ({
  kind: 'ACK',
  channelId,
  offset,
  payload: EMPTY,
});

export const closeFrame = (channelId: number, offset: number): ChannelFrame => ({
  kind: 'CLOSE',
  channelId,
  offset,
  payload: EMPTY,
});

export const errorFrame = (channelId: number, detail: ChannelErrorDetail): ChannelFrame => ({
  kind: 'ERROR',
  channelId,
  offset: 0,
  payload: new TextEncoder().encode(JSON.stringify({ status: detail.status, message: detail.message })),
});

/** The error an ERROR frame carries; a malformed payload reads as INTERNAL. */
export function errorOfFrame(frame: ChannelFrame): ChannelErrorDetail {
  try {
    const value = JSON.parse(new TextDecoder().decode(frame.payload)) as { status?: unknown; message?: unknown };
    const status = CANONICAL_CODES.find((c) => c === value.status) ?? 'INTERNAL';
    return { status, message: typeof value.message === 'string' ? value.message : 'channel failed' };
  } catch {
    return { status: 'INTERNAL', message: 'channel failed (unreadable error)' };
  }
}
