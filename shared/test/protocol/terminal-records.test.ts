import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  TERMINAL_RECORD,
  TerminalRecordDecoder,
  decodeTerminalMessage,
  encodeTerminalMessage,
  encodeTerminalRecord,
} from '../../src/protocol/index.js';
import type { TerminalRecordType } from '../../src/protocol/index.js';

const TYPES = Object.values(TERMINAL_RECORD);

describe('terminal records in a channel', () => {
  it('come out whole and in order however the stream is cut', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ type: fc.constantFrom(...TYPES), payload: fc.uint8Array({ maxLength: 300 }) }), {
          maxLength: 20,
        }),
        fc.array(fc.integer({ min: 1, max: 97 }), { minLength: 1, maxLength: 10 }),
        (records, cuts) => {
          const stream = Buffer.concat(records.map((r) => encodeTerminalRecord(r.type, r.payload)));
          const decoder = new TerminalRecordDecoder();
          const out: { type: TerminalRecordType; payload: Uint8Array }[] = [];
          for (let at = 0, i = 0; at < stream.length; i++) {
            const size = cuts[i % cuts.length]!;
            for (const record of decoder.push(stream.subarray(at, at + size))) {
              out.push({ type: record.type, payload: Uint8Array.from(record.payload) });
            }
            at += size;
          }
          expect(out).toEqual(records.map((r) => ({ type: r.type, payload: Uint8Array.from(r.payload) })));
          expect(decoder.idle).toBe(true);
        },
      ),
    );
  });

  it('an unknown record type or an oversized record fails the stream', () => {
    expect(() => new TerminalRecordDecoder().push(Uint8Array.from([9, 0, 0, 0, 0]))).toThrow(/unknown terminal record/);
    expect(() => new TerminalRecordDecoder().push(Uint8Array.from([1, 0x7f, 0, 0, 0]))).toThrow(/terminal record of/);
  });
});

describe('terminal records as WebSocket messages', () => {
  it('carry the type byte and the payload', () => {
    const message = encodeTerminalMessage(TERMINAL_RECORD.RESIZE, Buffer.from('{"cols":1,"rows":2}'));
    const record = decodeTerminalMessage(message);
    expect(record?.type).toBe(TERMINAL_RECORD.RESIZE);
    expect(Buffer.from(record!.payload).toString()).toBe('{"cols":1,"rows":2}');
  });

  it('an empty message or an unknown type is no record', () => {
    expect(decodeTerminalMessage(new Uint8Array(0))).toBeUndefined();
    expect(decodeTerminalMessage(Uint8Array.from([0, 65]))).toBeUndefined();
    expect(decodeTerminalMessage(Uint8Array.from([7]))).toBeUndefined();
  });
});
