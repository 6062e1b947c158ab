import { describe, expect, it } from 'vitest';
import { CHANNEL_FRAME_HEADER_BYTES, FramePool } from '../../src/index.js';
import type { FlowSettings } from '../../src/index.js';

const FLOW: FlowSettings = { windowBytes: 1024 * 1024, ackEveryBytes: 256 * 1024, maxFrameBytes: 256 * 1024 };
const FULL = CHANNEL_FRAME_HEADER_BYTES + FLOW.maxFrameBytes;

describe('a frame pool', () => {
  it('lends memory of the size asked, at the start of an ArrayBuffer of its own of the next power of two', () => {
    const pool = new FramePool(FLOW);
    const frame = pool.take(100_000);
    expect(frame.length).toBe(100_000);
    expect(frame.byteOffset).toBe(0);
    expect(frame.buffer.byteLength).toBe(128 * 1024);
    // a full frame is a little over a power of two: its memory is just that
    expect(pool.take(FULL - 10).buffer.byteLength).toBe(FULL);
  });

  it('lends a frame given back again, and never one still lent', () => {
    const pool = new FramePool(FLOW);
    const first = pool.take(FULL);
    const second = pool.take(FULL);
    expect(second.buffer).not.toBe(first.buffer);
    pool.give(first);
    const third = pool.take(FULL - 10);
    expect(third.buffer).toBe(first.buffer);
    expect(pool.take(FULL).buffer).not.toBe(second.buffer);
  });

  it('takes a frame back once, however often it is given', () => {
    const pool = new FramePool(FLOW);
    const frame = pool.take(FULL);
    pool.give(frame);
    pool.give(frame);
    expect(pool.take(FULL).buffer).toBe(frame.buffer);
    expect(pool.take(FULL).buffer).not.toBe(frame.buffer);
  });

  it('ignores memory it did not lend, and does not pool small or oversized frames', () => {
    const pool = new FramePool(FLOW);
    const foreign = Buffer.allocUnsafeSlow(FULL);
    pool.give(foreign);
    expect(pool.take(FULL).buffer).not.toBe(foreign.buffer);
    for (const bytes of [100, FULL + 1]) {
      const frame = pool.take(bytes);
      expect(frame.length).toBe(bytes);
      expect(frame.byteOffset).toBe(0);
      pool.give(frame);
      expect(pool.take(bytes).buffer).not.toBe(frame.buffer);
    }
  });
});
