import { z } from 'zod';

/** Where a device's port forwards may go when its spec.remoteAccess names none (issue 21). */
export const DEFAULT_FORWARD_TARGETS: readonly string[] = ['127.0.0.1'];

/** A user name the agent may run a shell as (POSIX portable names). */
export const SHELL_USER_PATTERN = /^[a-z_][a-z0-9_-]{0,31}$/;

/** `spec.remoteAccess` of a device: what the remote terminal and port forwarding may do on it. */
export const remoteAccessSchema = z.object({
  /** true: `outpost devices ssh` and the terminal endpoint are refused for this device */
  disableTerminal: z.boolean().optional(),
  /** true: `outpost devices port-forward` is refused for this device */
  disablePortForward: z.boolean().optional(),
  /** hosts (names or addresses) a port forward may reach from the device; default 127.0.0.1 only */
  forwardTargets: z.array(z.string().min(1).max(253)).max(64).optional(),
  /** true: the output of each terminal session is kept in its RemoteSession record (`transcript`, first 1 MiB) */
  recordTranscripts: z.boolean().optional(),
  /** the user the agent runs remote shells as (default: the agent's own user) */
  shellUser: z.string().regex(SHELL_USER_PATTERN, 'must be a user name like "operator"').optional(),
});
export type RemoteAccess = z.infer<typeof remoteAccessSchema>;

export const terminalSizeSchema = z.object({
  cols: z.int().min(1).max(1000),
  rows: z.int().min(1).max(1000),
});
export type TerminalSize = z.infer<typeof terminalSizeSchema>;

/**
 * `remote.terminal`: runs `command` (argv; absent: the user's login shell) in a pseudo-terminal of `tty`'s size,
 * or without one (pipes; stdout and stderr apart) when `tty` is absent. Records flow both ways (TerminalRecord).
 */
export const terminalArgsSchema = z.object({
  command: z
    .array(z.string().max(64 * 1024))
    .min(1)
    .max(1024)
    .optional(),
  tty: terminalSizeSchema
    .extend({
      term: z
        .string()
        .regex(/^[A-Za-z0-9._+-]{1,64}$/)
        .optional(),
    })
    .optional(),
  user: z.string().regex(SHELL_USER_PATTERN).optional(),
});
export type TerminalArgs = z.infer<typeof terminalArgsSchema>;

/** `remote.forward`: a TCP connection from the device to `host:port`, allowed only when `host` is in `allowedTargets`. */
export const forwardArgsSchema = z.object({
  host: z.string().min(1).max(253),
  port: z.int().min(1).max(65_535),
  allowedTargets: z.array(z.string().min(1).max(253)).max(64),
});
export type ForwardArgs = z.infer<typeof forwardArgsSchema>;

/**
 * The records of a terminal session. Client to device: INPUT (keystrokes or stdin bytes), RESIZE (JSON
 * TerminalSize), INPUT_END (stdin closed; without a tty). Device to client: OUTPUT, ERROR_OUTPUT (stderr without
 * a tty), EXIT (JSON `{exitCode, signal?}`, the last record).
 */
export const TERMINAL_RECORD = {
  INPUT: 1,
  RESIZE: 2,
  INPUT_END: 3,
  OUTPUT: 4,
  ERROR_OUTPUT: 5,
  EXIT: 6,
} as const;
export type TerminalRecordType = (typeof TERMINAL_RECORD)[keyof typeof TERMINAL_RECORD];
const RECORD_TYPES = new Set<number>(Object.values(TERMINAL_RECORD));

export const terminalExitSchema = z.object({ exitCode: z.int(), signal: z.string().max(32).optional() });
export type TerminalExit = z.infer<typeof terminalExitSchema>;

export interface TerminalRecord {
  type: TerminalRecordType;
  payload: Uint8Array;
}

/** The largest payload of one record (a chunk of output is cut to fit). */
export const MAX_TERMINAL_RECORD_BYTES = 1024 * 1024;
const HEADER_BYTES = 5;

/**
 * One record as it travels in a channel: type (1 byte), payload length (uint32, big endian), payload. (A
 * WebSocket message carries one record without the length: `type, payload`.)
 */
export function encodeTerminalRecord(type: TerminalRecordType, payload: Uint8Array = new Uint8Array(0)): Uint8Array {
  if (payload.length > MAX_TERMINAL_RECORD_BYTES) throw new RangeError(`a terminal record holds at most 1 MiB`);
  const bytes = Buffer.allocUnsafe(HEADER_BYTES + payload.length);
  bytes[0] = type;
  bytes.writeUInt32BE(payload.length, 1);
  bytes.set(payload, HEADER_BYTES);
  return bytes;
}

/** A record as one WebSocket message: its type, then its payload. */
export function encodeTerminalMessage(type: TerminalRecordType, payload: Uint8Array = new Uint8Array(0)): Uint8Array {
  const bytes = Buffer.allocUnsafe(1 + payload.length);
  bytes[0] = type;
  bytes.set(payload, 1);
  return bytes;
}

/** Reads a WebSocket message as a record; undefined when it is not one. */
export function decodeTerminalMessage(message: Uint8Array): TerminalRecord | undefined {
  const type = message[0];
  if (type === undefined || !RECORD_TYPES.has(type) || message.length - 1 > MAX_TERMINAL_RECORD_BYTES) return undefined;
  return { type: type as TerminalRecordType, payload: message.subarray(1) };
}

/** Splits a channel's byte stream into records; throws on a malformed stream. */
export class TerminalRecordDecoder {
  private pending: Buffer = Buffer.alloc(0);

  push(chunk: Uint8Array): TerminalRecord[] {
    this.pending = this.pending.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.pending, chunk]);
    const records: TerminalRecord[] = [];
    for (;;) {
      if (this.pending.length < HEADER_BYTES) return records;
      const type = this.pending[0]!;
      const length = this.pending.readUInt32BE(1);
      if (!RECORD_TYPES.has(type)) throw new RangeError(`unknown terminal record type ${type}`);
      if (length > MAX_TERMINAL_RECORD_BYTES) throw new RangeError(`terminal record of ${length} bytes`);
      if (this.pending.length < HEADER_BYTES + length) return records;
      records.push({
        type: type as TerminalRecordType,
        payload: this.pending.subarray(HEADER_BYTES, HEADER_BYTES + length),
      });
      this.pending = this.pending.subarray(HEADER_BYTES + length);
    }
  }

  /** true when no partial record is left */
  get idle(): boolean {
    return this.pending.length === 0;
  }
}
