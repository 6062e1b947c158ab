import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readBatches } from '../../src/transfer/read-batches.js';

async function collect(stream: PassThrough, target: number): Promise<Buffer[][]> {
  const batches: Buffer[][] = [];
  for await (const batch of readBatches(stream, target)) batches.push(batch);
  return batches;
}

describe('readBatches', () => {
  it('takes what is buffered in batches of about the target size, in order, to the end', async () => {
    const stream = new PassThrough({ highWaterMark: 1024 * 1024 });
    for (let i = 0; i < 10; i++) stream.write(Buffer.alloc(1000, i));
    const reading = collect(stream, 3000);
    setTimeout(() => {
      stream.write(Buffer.alloc(500, 10));
      stream.end();
    }, 20);
    const batches = await reading;
    expect(Buffer.concat(batches.flat())).toEqual(
      Buffer.concat([...Array.from({ length: 10 }, (_, i) => Buffer.alloc(1000, i)), Buffer.alloc(500, 10)]),
    );
    expect(batches.length).toBeLessThan(11);
    expect(batches.every((b) => b.reduce((n, c) => n + c.length, 0) <= 3000 + 1000)).toBe(true);
  });

  it('fails when the stream errors or is destroyed before its end', async () => {
    const failing = new PassThrough();
    const reading = collect(failing, 100);
    failing.destroy(new Error('socket hang up'));
    await expect(reading).rejects.toThrow('socket hang up');
    const cut = new PassThrough();
    const cutReading = collect(cut, 100);
    cut.write('partial');
    setTimeout(() => cut.destroy(), 10);
    await expect(cutReading).rejects.toThrow(/closed before its end/);
  });
});
