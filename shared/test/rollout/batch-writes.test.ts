import { describe, expect, it } from 'vitest';
import { CONCURRENT_WRITE_BATCHES, writeInBatches } from '../../src/rollout/batch-writes.js';

const names = (n: number): string[] => Array.from({ length: n }, (_, i) => `d-${i}`);

describe('writeInBatches', () => {
  it('writes every item once, in batches of at most the size, several calls in flight', async () => {
    const written: string[] = [];
    let inFlight = 0;
    let mostInFlight = 0;
    const refused = await writeInBatches(names(9_490), 1000, async (batch) => {
      expect(batch.length).toBeLessThanOrEqual(1000);
      mostInFlight = Math.max(mostInFlight, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight--;
      written.push(...batch);
      return batch.filter((name) => name.endsWith('7')).slice(0, 1);
    });
    expect(written.sort()).toEqual(names(9_490).sort());
    expect(mostInFlight).toBe(CONCURRENT_WRITE_BATCHES);
    expect(CONCURRENT_WRITE_BATCHES).toBeGreaterThan(2);
    expect(refused).toHaveLength(10);
  });

  it('takes no new batch once the signal is aborted', async () => {
    const controller = new AbortController();
    let calls = 0;
    await writeInBatches(
      names(10_000),
      1000,
      async () => {
        calls++;
        controller.abort();
        await Promise.resolve();
        return [];
      },
      controller.signal,
    );
    // the first call aborts before the other workers take a batch
    expect(calls).toBe(1);
  });

  it('writes nothing for no items', async () => {
    let calls = 0;
    expect(await writeInBatches([], 1000, async () => [calls++])).toEqual([]);
    expect(calls).toBe(0);
  });
});
