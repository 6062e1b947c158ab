import { describe, expect, it } from 'vitest';
import { CHUNK_RECORD_BYTES } from '@outpost/shared';
import { ChunkPool } from '../../src/transfer/chunk-pool.js';

describe('ChunkPool', () => {
  it('hands out the memory it took back, and fresh memory only while none is free', () => {
    const pool = new ChunkPool();
    const first = pool.allocate(CHUNK_RECORD_BYTES);
    const second = pool.allocate(100);
    expect(second.buffer).not.toBe(first.buffer);
    expect(second).toHaveLength(100);
    pool.release(first.subarray(0, 10));
    pool.release(first); // twice: still one free buffer
    const again = pool.allocate(5000);
    expect(again.buffer).toBe(first.buffer);
    expect(again).toHaveLength(5000);
    expect(pool.allocate(5000).buffer).not.toBe(first.buffer);
  });

  it('ignores memory it did not hand out, and does not pool what is larger than a chunk', () => {
    const pool = new ChunkPool();
    const foreign = new Uint8Array(CHUNK_RECORD_BYTES);
    pool.release(foreign);
    expect(pool.allocate(10).buffer).not.toBe(foreign.buffer);
    const large = pool.allocate(CHUNK_RECORD_BYTES + 1);
    expect(large).toHaveLength(CHUNK_RECORD_BYTES + 1);
    pool.release(large);
    expect(pool.allocate(CHUNK_RECORD_BYTES).buffer).not.toBe(large.buffer);
  });
});
