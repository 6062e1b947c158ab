/**
 * Issue 23, watch across replicas, as the acceptance words it: three real control-plane processes (A, B, C) on one
 * throwaway PostgreSQL. A watch on C sees, in order, the writes made through A; ended, and after more writes
 * through A and C, its last resume token resumes on B, which sends exactly the changes after that token, in the
 * order they were made, none skipped or repeated, and then the live ones. Skipped without PostgreSQL, except under
 * CI=true.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { clusterTestsSkipped } from './helpers/cluster-replicas.js';
import type { Replica } from './helpers/cluster-replicas.js';
import { perAttempt } from './helpers/per-attempt.js';
import { replicasOnePostgres } from './helpers/replicas-one-postgres.js';

interface WatchResponse {
  resumeToken?: string;
  deviceTypeChanges?: readonly ({ current?: { deviceType?: { name?: string } }; removed?: { name?: string } } | null)[];
}

const skipped = clusterTestsSkipped('cluster watch test');

/** Reads responses from `stream` until they name every one of `names`; the responses read. */
async function readUntil(stream: AsyncGenerator<WatchResponse>, names: readonly string[]): Promise<WatchResponse[]> {
  const seen: WatchResponse[] = [];
  for (;;) {
    const next = await stream.next();
    if (next.done) throw new Error(`the stream ended before it named ${names.join(', ')}`);
    seen.push(next.value);
    const named = changedNames(seen);
    if (names.every((name) => named.includes(name))) return seen;
  }
}

/** The device types the responses' changes name, in the order sent (a name changed twice is there twice). */
function changedNames(responses: readonly WatchResponse[]): string[] {
  return responses.flatMap((response) =>
    (response.deviceTypeChanges ?? []).flatMap((change) => {
      const name = change?.current?.deviceType?.name ?? change?.removed?.name;
      return name === undefined ? [] : [name];
    }),
  );
}

const lastToken = (responses: readonly WatchResponse[]): string | undefined =>
  responses.map((response) => response.resumeToken).findLast((token) => token !== undefined && token !== '');

describe.skipIf(skipped)('a watch across control-plane replicas on one PostgreSQL', () => {
  const replicas = replicasOnePostgres(3);
  let a: Replica;
  let b: Replica;
  let c: Replica;
  beforeAll(() => {
    [a, b, c] = [replicas.replica(0), replicas.replica(1), replicas.replica(2)];
  });

  const watch = (replica: Replica, signal: AbortSignal, resumeToken?: string): AsyncGenerator<WatchResponse> =>
    replica.admin.stream<WatchResponse>('POST', '/v1/deviceTypes:watch', {
      body: { type: 'STATELESS', ...(resumeToken === undefined ? {} : { resumeToken }) },
      signal,
    });
  const create = (replica: Replica, name: string): Promise<unknown> =>
    replica.admin.create('', 'deviceTypes', { name, architecture: 'AMD64' });

  it('a watch on C sees a write made on A, and resumes on B with C’s token: exactly what came after, in order', async (context) => {
    const [first, second, third, fourth, fifth, sixth] = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth'].map(
      (type) => perAttempt(context, `deviceTypes/${type}`),
    ) as [string, string, string, string, string, string];

    const onCEnded = new AbortController();
    const onC = watch(c, onCEnded.signal);
    const snapshot = await onC.next(); // the watch is live from here
    expect(snapshot.done).toBe(false);
    await create(a, first);
    await create(a, second);
    const seenOnC = await readUntil(onC, [first, second]);
    expect(changedNames(seenOnC)).toEqual([first, second]);
    const token = lastToken(seenOnC);
    expect(token).toBeDefined();
    onCEnded.abort();
    await onC.return(undefined);

    // after C's token, through A and through C
    await create(a, third);
    await create(c, fourth);
    await create(a, fifth);
    const onBEnded = new AbortController();
    const onB = watch(b, onBEnded.signal, token);
    const replayed = await readUntil(onB, [third, fourth, fifth]);
    // and a write through A while the watch on B is live reaches it too, after the replayed ones
    await create(a, sixth);
    const live = await readUntil(onB, [sixth]);
    expect(changedNames([...replayed, ...live])).toEqual([third, fourth, fifth, sixth]);
    onBEnded.abort();
    await onB.return(undefined);
  });
});
