import { describe, expect, it, vi } from 'vitest';
import { ChangeQueue } from '../../src/config-apply/change-queue.js';

describe('ChangeQueue', () => {
  it('runs changes one after another, and one that fails neither stops the next nor goes unreported', async () => {
    const order: string[] = [];
    const errors: unknown[] = [];
    const queue = new ChangeQueue((err) => errors.push(err));
    let release = (): void => undefined;
    const first = queue.run(async () => {
      order.push('first starts');
      await new Promise<void>((resolve) => (release = resolve));
      order.push('first ends');
      throw new Error('first failed');
    });
    const second = queue.run(async () => {
      order.push('second');
      await Promise.resolve();
    });
    await vi.waitFor(() => expect(order).toEqual(['first starts']), { timeout: 20_000 });
    release();
    await expect(first).rejects.toThrow('first failed');
    await second;
    expect(order).toEqual(['first starts', 'first ends', 'second']);
    expect(errors).toEqual([new Error('first failed')]);
  });
});
