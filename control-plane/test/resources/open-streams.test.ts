import { permissionDenied, unauthenticated } from '@outpost/shared';
import { describe, expect, it } from 'vitest';
import { endable, OpenStreams } from '../../src/resources/watch/open-streams.js';

/** Yields `first`, then waits until `signal` aborts, as a watch with no changes does. */
async function* idleAfter(first: string, signal: AbortSignal, finished: string[]): AsyncGenerator<string> {
  try {
    yield first;
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  } finally {
    finished.push(first);
  }
}

describe('endable', () => {
  it('fails a waiting next() with the error at once, and returns the inner iterator once it is released', async () => {
    const controller = new AbortController();
    const finished: string[] = [];
    const guarded = endable(idleAfter('a', controller.signal, finished));
    expect(await guarded.iterator.next()).toEqual({ done: false, value: 'a' });
    const waiting = guarded.iterator.next();
    guarded.end(permissionDenied('gone'));
    await expect(waiting).rejects.toThrow('gone');
    await expect(guarded.iterator.next()).rejects.toThrow('gone');
    controller.abort();
    await guarded.iterator.return?.(undefined);
    expect(finished).toEqual(['a']);
  });
});

describe('OpenStreams', () => {
  it('ends the streams whose re-check fails, and those of a revoked owner, with their errors', () => {
    const streams = new OpenStreams(60_000);
    const ended: Record<string, string> = {};
    let allowed = true;
    const add = (id: string, owner: string, recheck: () => void) =>
      streams.add({ owner, recheck, end: (error) => (ended[id] = error.status), abort: () => {} });
    add('lapsing', 'apiKeys/a', () => {
      if (!allowed) throw permissionDenied('missing permission');
    });
    add('kept', 'apiKeys/a', () => {});
    const forgetOther = add('other', 'apiKeys/b', () => {});
    streams.reauthorizeAll();
    expect(ended).toEqual({});
    allowed = false;
    streams.reauthorizeAll();
    expect(ended).toEqual({ lapsing: 'PERMISSION_DENIED' });
    streams.endOwnedBy('apiKeys/b', unauthenticated('apiKeys/b was revoked'));
    expect(ended).toEqual({ lapsing: 'PERMISSION_DENIED', other: 'UNAUTHENTICATED' });
    forgetOther();
    expect(streams.size).toBe(2);
  });
});
