import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  CHANNEL_FRAME_KINDS,
  decodeChannelFrame,
  encodeChannelFrame,
  errorFrame,
  errorOfFrame,
} from '../../src/channels/index.js';

describe('channel frames', () => {
  it('round-trip every kind, id and offset', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...CHANNEL_FRAME_KINDS),
        fc.integer({ min: 0, max: 0xffffffff }),
        fc.maxSafeNat(),
        fc.uint8Array({ maxLength: 64 }),
        (kind, channelId, offset, bytes) => {
          const payload = kind === 'DATA' || kind === 'ERROR' ? bytes : new Uint8Array(0);
          const decoded = decodeChannelFrame(encodeChannelFrame({ kind, channelId, offset, payload }));
          if (!decoded.ok) throw new Error(decoded.error);
          expect({ ...decoded.frame, payload: [...decoded.frame.payload] }).toEqual({
            kind,
            channelId,
            offset,
            payload: [...payload],
          });
        },
      ),
    );
  });

  it('refuses short, unknown and malformed frames without throwing', () => {
    expect(decodeChannelFrame(new Uint8Array(3))).toMatchObject({ ok: false, error: expect.stringMatching(/short/) });
    const good = new Uint8Array(
      encodeChannelFrame({ kind: 'ACK', channelId: 1, offset: 5, payload: new Uint8Array(0) }),
    );
    const badVersion = good.slice();
    badVersion[0] = 9;
    expect(decodeChannelFrame(badVersion)).toMatchObject({ ok: false, error: expect.stringMatching(/version/) });
    const badKind = good.slice();
    badKind[1] = 7;
    expect(decodeChannelFrame(badKind)).toMatchObject({ ok: false, error: expect.stringMatching(/kind/) });
    const ackWithPayload = new Uint8Array([...good, 1, 2]);
    expect(decodeChannelFrame(ackWithPayload)).toMatchObject({ ok: false, error: expect.stringMatching(/payload/) });
  });

  it('an ERROR frame carries a canonical status and a message', () => {
    const frame = errorFrame(3, { status: 'PERMISSION_DENIED', message: 'no' });
    expect(errorOfFrame(frame)).toEqual({ status: 'PERMISSION_DENIED', message: 'no' });
    expect(errorOfFrame({ ...frame, payload: new TextEncoder().encode('garbage') }).status).toBe('INTERNAL');
    expect(errorOfFrame({ ...frame, payload: new TextEncoder().encode('{"status":"NOPE"}') }).status).toBe('INTERNAL');
  });

  it('refuses to encode ids and offsets out of range', () => {
    const payload = new Uint8Array(0);
    expect(() => encodeChannelFrame({ kind: 'ACK', channelId: -1, offset: 0, payload })).toThrow(RangeError);
    expect(() => encodeChannelFrame({ kind: 'ACK', channelId: 2 ** 32, offset: 0, payload })).toThrow(RangeError);
    expect(() => encodeChannelFrame({ kind: 'ACK', channelId: 1, offset: 1.5, payload })).toThrow(RangeError);
  });
});
