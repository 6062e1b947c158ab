/**
 * Issue 23, watch across replicas: two real control-plane processes on one throwaway PostgreSQL. A watch on
 * replica B sees a write made through replica A, in log order, and its resume token resumes on A. Skipped
 * without PostgreSQL, except under CI=true.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { clusterTestsSkipped } from './helpers/cluster-replicas.js';
import { twoReplicasOnePostgres } from './helpers/two-replicas.js';
import type { Replica } from './helpers/cluster-replicas.js';
import { perAttempt } from './helpers/per-attempt.js';

interface WatchResponse {
  resumeToken?: string;
  [key: string]: unknown;
}

const skipped = clusterTestsSkipped('cluster watch test');

/** Reads responses from `stream` until one mentions every name of `names`; the responses read. */
async function readUntil(stream: AsyncGenerator<WatchResponse>, names: readonly string[]): Promise<WatchResponse[]> {
  const seen: WatchResponse[] = [];
  for (;;) {
    const next = await stream.next();
    if (next.done) throw new Error(`the stream ended before it named ${names.join(', ')}`);
    seen.push(next.value);
    const text = JSON.stringify(seen);
    if (names.every((name) => text.includes(`"${name}"`))) return seen;
  }
}

describe.skipIf(skipped)('a watch across control-plane replicas on one PostgreSQL', () => {
  const replicas = twoReplicasOnePostgres();
  let a: Replica;
  let b: Replica;
  beforeAll(() => {
    a = replicas.a();
    b = replicas.b();
  });

  it('sees on B, in order, what was written through A, and resumes on A with B’s token', async (context) => {
    const [first, second, third, fourth, fifth] = ['first', 'second', 'third', 'fourth', 'fifth'].map((type) =>
      perAttempt(context, `deviceTypes/${type}`),
    ) as [string, string, string, string, string];
    const controller = new AbortController();
    const onB = b.admin.stream<WatchResponse>('POST', '/v1/deviceTypes:watch', {
      body: { type: 'STATELESS' },
      signal: controller.signal,
    });
    await onB.next(); // the (empty) snapshot: the watch is live from here
    for (const name of [first, second, third]) {
      await a.admin.create('', 'deviceTypes', { name, architecture: 'AMD64' });
    }
    const seen = await readUntil(onB, [first, second, third]);
    const text = JSON.stringify(seen);
    expect(text.indexOf(`"${first}"`)).toBeLessThan(text.indexOf(`"${second}"`));
    expect(text.indexOf(`"${second}"`)).toBeLessThan(text.indexOf(`"${third}"`));
    const token = seen.map((response) => response.resumeToken).findLast((t) => t !== undefined && t !== '');
    expect(token).toBeDefined();
    controller.abort();
    await onB.return(undefined);

    // written through B after B's token: A, resuming from it, sends exactly that change
    await b.admin.create('', 'deviceTypes', { name: fourth, architecture: 'AMD64' });
    const resumed = new AbortController();
    const onA = a.admin.stream<WatchResponse>('POST', '/v1/deviceTypes:watch', {
      body: { type: 'STATELESS', resumeToken: token },
      signal: resumed.signal,
    });
    const replayed = JSON.stringify(await readUntil(onA, [fourth]));
    expect(replayed).not.toContain(`"${third}"`);
    // and a write through B while the watch on A is live reaches it too
    await b.admin.create('', 'deviceTypes', { name: fifth, architecture: 'AMD64' });
    await readUntil(onA, [fifth]);
    resumed.abort();
    await onA.return(undefined);
  });
});
