import { describe, expect, it } from 'vitest';
import type { Change } from '../../src/resources/change-log.js';
import { ChangeQueue } from '../../src/resources/watch/change-queue.js';
import { ResponseMemo } from '../../src/resources/watch/response-memo.js';

const change = (seq: number, bytes: number): Change => ({
  seq,
  plural: 'widgets',
  name: `projects/p1/regions/r1/widgets/w${seq}`,
  op: 'put',
  before: null,
  after: {},
  changed: undefined,
  bytes,
  time: new Date(0).toISOString(),
});

describe('what a watch stream buffers is bounded', () => {
  it('a queue overflows on bytes as well as on count, and starts empty after its reset', async () => {
    const queue = new ChangeQueue({ capacity: 100, maxBytes: 1000 }, new AbortController().signal);
    queue.push(change(1, 600));
    queue.push(change(2, 300));
    expect(queue.overflowed).toBe(false);
    queue.push(change(3, 200)); // 1,100 bytes
    expect(queue.overflowed).toBe(true);
    expect(queue.length).toBe(0);
    expect(queue.resetOverflow()).toBe(true);
    queue.push(change(4, 900));
    expect(queue.overflowed).toBe(false);
    expect((await queue.take())?.map((c) => c.seq)).toEqual([4]);

    const counted = new ChangeQueue({ capacity: 2, maxBytes: 1e9 }, new AbortController().signal);
    for (let seq = 1; seq <= 3; seq++) counted.push(change(seq, 1));
    expect(counted.overflowed).toBe(true);
  });

  it('the shared response memo keeps the newest responses within its bytes, and always the newest one', () => {
    const memo = new ResponseMemo(100, 1000);
    const line = (n: number): string => 'x'.repeat(n);
    memo.get('a', () => line(400));
    memo.get('b', () => line(400));
    expect(memo.size).toBe(2);
    memo.get('c', () => line(400)); // 1,200 bytes: the oldest goes
    expect(memo.size).toBe(2);
    let built = 0;
    memo.get('a', () => (built++, line(400)));
    expect(built).toBe(1);
    memo.get('huge', () => line(5000));
    expect(memo.size).toBe(1);
    expect(memo.get('huge', () => 'rebuilt').ndjson).toHaveLength(5000);
  });
});
