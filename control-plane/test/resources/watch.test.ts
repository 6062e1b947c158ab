import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResourceEngine } from '../../src/resources/resource-engine.js';
import { watchStateless } from '../../src/resources/watch/stateless-watch.js';
import type { SerializedResponse, WatchCollectionResponse } from '../../src/resources/watch/watch-types.js';
import { perAttempt } from '../helpers/per-attempt.js';
import { describeStorages } from '../helpers/storages.js';
import { startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { widgetDefinition } from '../helpers/widgets.js';
import type { Widget } from '../helpers/widgets.js';

interface WireResponse {
  widgetChanges: Record<string, { widget?: Widget; name?: string; viewIndex?: number; previousViewIndex?: number }>[];
  isCurrent: boolean;
  resumeToken: string;
  snapshotSize: number;
  isSoftReset: boolean;
  isHardReset: boolean;
  pageTokenChange?: { prevPageToken: string; nextPageToken: string };
}

const iterate = <T>(iterable: AsyncIterable<T>): AsyncIterator<T> => iterable[Symbol.asyncIterator]();

/** Pulls responses from a stream until `until` says stop. */
async function collect(
  it: AsyncIterator<WireResponse>,
  until: (r: WireResponse, all: WireResponse[]) => boolean,
): Promise<WireResponse[]> {
  const out: WireResponse[] = [];
  for (;;) {
    const step = await it.next();
    if (step.done) return out;
    out.push(step.value);
    if (until(step.value, out)) return out;
  }
}

const versionsOf = (responses: WireResponse[]): string[] =>
  responses.flatMap((r) =>
    r.widgetChanges.flatMap((c) =>
      c['current']?.widget ? [`${c['current'].widget.name}@${c['current'].widget.spec?.size}`] : [],
    ),
  );

describe('stateless watch over HTTP', () => {
  let server: TestServer;
  const parent = 'projects/watch/regions/r1';
  beforeAll(async () => {
    server = await startTestServer({ resources: [{ def: widgetDefinition }] });
  });
  afterAll(async () => server.dispose());

  it('a watcher cut off mid-stream and resumed with its token misses nothing: each record changed meanwhile comes once, as it is now', async (context) => {
    // the attempt's own parent: a retry's snapshot holds none of its first attempt's records
    const region = `${perAttempt(context, 'projects/watch')}/regions/r1`;
    const widgets = server.engine.resource('widgets');
    for (let i = 0; i < 5; i++) widgets.put({ name: `${region}/widgets/s${i}`, spec: { size: 0 } });

    const first = new AbortController();
    const stream1 = iterate(
      server.admin.watch<WireResponse>(
        `/v1/${region}/widgets:watch`,
        { type: 'STATELESS', maxChunkSize: 2 },
        first.signal,
      ),
    );
    const snapshot = await collect(stream1, (r) => r.isCurrent);
    expect(snapshot).toHaveLength(3); // 5 records in chunks of 2
    expect(snapshot.slice(0, -1).every((r) => !r.isCurrent && r.resumeToken === '' && r.snapshotSize === -1)).toBe(
      true,
    );
    expect(versionsOf(snapshot)).toHaveLength(5);
    const size = await collect(stream1, () => true);
    expect(size[0]).toMatchObject({ snapshotSize: 5, isCurrent: false, widgetChanges: [] });

    // changes while connected
    let version = 0;
    const expected: string[] = [];
    const change = (i: number): void => {
      version++;
      widgets.put({ name: `${region}/widgets/s${i}`, spec: { size: version } });
      expected.push(`${region}/widgets/s${i}@${version}`);
    };
    for (let k = 0; k < 6; k++) change(k % 5);
    const live = await collect(stream1, (_r, all) => versionsOf(all).length >= 6);
    const token = live.filter((r) => r.isCurrent).at(-1)!.resumeToken;
    expect(token).not.toBe('');
    first.abort(); // cut off

    expect(versionsOf(live)).toEqual(expected);
    const meanwhile: string[] = [];
    for (let k = 0; k < 9; k++) {
      change(k % 3); // while disconnected: several changes per record
      if (k >= 6) meanwhile.push(expected.at(-1)!); // the last change of each record
    }
    widgets.remove(`${region}/widgets/s4`);

    const second = new AbortController();
    const stream2 = iterate(
      server.admin.watch<WireResponse>(
        `/v1/${region}/widgets:watch`,
        { type: 'STATELESS', resumeToken: token },
        second.signal,
      ),
    );
    const resumed = await collect(stream2, (r) => r.isCurrent);
    second.abort();
    expect(versionsOf(resumed)).toEqual(meanwhile);
    expect(resumed.flatMap((r) => r.widgetChanges.filter((c) => c['removed']).map((c) => c['removed']!.name))).toEqual([
      `${region}/widgets/s4`,
    ]);
  });

  it('filters and masks: changes outside the filter or the mask are not sent', async (context) => {
    const widgets = server.engine.resource('widgets');
    const p = `${perAttempt(context, 'projects/watch2')}/regions/r1`;
    widgets.put({ name: `${p}/widgets/a1`, spec: { color: 'red', size: 1 } });
    const controller = new AbortController();
    const stream = iterate(
      server.admin.watch<WireResponse>(
        `/v1/${p}/widgets:watch`,
        { type: 'STATELESS', filter: 'spec.color = "red"', fieldMask: 'spec.color' },
        controller.signal,
      ),
    );
    await collect(stream, (r) => r.isCurrent);
    await collect(stream, () => true); // size message
    widgets.put({ name: `${p}/widgets/b1`, spec: { color: 'blue' } }); // outside the filter
    widgets.patch(`${p}/widgets/a1`, (d) => ({ ...d, spec: { color: 'red', size: 2 } })); // outside the mask
    widgets.patch(`${p}/widgets/a1`, (d) => ({ ...d, spec: { color: 'green', size: 2 } })); // leaves the filter
    widgets.put({ name: `${p}/widgets/c1`, spec: { color: 'red' } });
    const next = await collect(stream, (_r, all) => all.flatMap((x) => x.widgetChanges).length >= 2);
    controller.abort();
    expect(next.flatMap((r) => r.widgetChanges)).toEqual([
      { removed: { name: `${p}/widgets/a1` } },
      { current: { widget: { name: `${p}/widgets/c1`, spec: { color: 'red' } } } },
    ]);
  });

  it('refuses paging fields in a stateless watch and bad resume tokens', async () => {
    const run = (body: unknown) =>
      collect(
        server.admin.watch<WireResponse>(`/v1/${parent}/widgets:watch`, body)[Symbol.asyncIterator](),
        () => true,
      );
    await expect(run({ type: 'STATELESS', pageSize: 3 })).rejects.toMatchObject({ status: 'INVALID_ARGUMENT' });
    await expect(run({ type: 'STATELESS', resumeToken: 'garbage' })).rejects.toMatchObject({
      status: 'INVALID_ARGUMENT',
    });
    await expect(run({ type: 'STATEFUL', resumeToken: 'r1' })).rejects.toMatchObject({ status: 'INVALID_ARGUMENT' });
  });
});

describe('stateful watch over HTTP', () => {
  let server: TestServer;
  const parent = 'projects/page/regions/r1';
  beforeAll(async () => {
    server = await startTestServer({ resources: [{ def: widgetDefinition }] });
  });
  afterAll(async () => server.dispose());

  it('with a page size, sees records enter and leave its page', async (context) => {
    // the attempt's own parent: a retry's snapshot holds none of its first attempt's records
    const region = `${perAttempt(context, 'projects/page')}/regions/r1`;
    const widgets = server.engine.resource('widgets');
    for (const id of ['b', 'd', 'f', 'h']) widgets.put({ name: `${region}/widgets/w${id}`, spec: { size: 1 } });
    const controller = new AbortController();
    const stream = iterate(
      server.admin.watch<WireResponse>(
        `/v1/${region}/widgets:watch`,
        { type: 'STATEFUL', pageSize: 3 },
        controller.signal,
      ),
    );
    const [initial] = await collect(stream, (r) => r.isCurrent);
    expect(initial!.widgetChanges.map((c) => [c['added']!.widget!.name.slice(-2), c['added']!.viewIndex])).toEqual([
      ['wb', 0],
      ['wd', 1],
      ['wf', 2],
    ]);
    expect(initial!.pageTokenChange?.nextPageToken).not.toBe('');

    widgets.put({ name: `${region}/widgets/wa`, spec: { size: 1 } }); // enters at the top, pushes wf out
    const [entered] = await collect(stream, (r) => r.isCurrent);
    expect(entered!.widgetChanges).toContainEqual({ removed: { name: `${region}/widgets/wf`, viewIndex: 2 } });
    expect(entered!.widgetChanges).toContainEqual({
      added: { widget: expect.objectContaining({ name: `${region}/widgets/wa` }), viewIndex: 0 },
    });
    expect(entered!.widgetChanges).toContainEqual({
      modified: expect.objectContaining({ name: `${region}/widgets/wd`, previousViewIndex: 1, viewIndex: 2 }),
    });

    widgets.remove(`${region}/widgets/wb`); // leaves; wf comes back
    const [left] = await collect(stream, (r) => r.isCurrent);
    expect(left!.widgetChanges).toContainEqual({ removed: { name: `${region}/widgets/wb`, viewIndex: 1 } });
    expect(left!.widgetChanges).toContainEqual({
      added: { widget: expect.objectContaining({ name: `${region}/widgets/wf` }), viewIndex: 2 },
    });

    widgets.put({ name: `${region}/widgets/wz`, spec: { size: 1 } }); // beyond the page: nothing sent for it
    widgets.patch(`${region}/widgets/wa`, (d) => ({ ...d, spec: { size: 2 } }));
    const [modified] = await collect(stream, (r) => r.isCurrent);
    controller.abort();
    expect(modified!.widgetChanges).toEqual([
      {
        modified: expect.objectContaining({
          name: `${region}/widgets/wa`,
          fieldMask: expect.stringContaining('spec.size'),
        }),
      },
    ]);
  });

  it('a single-resource watch sends the current state, then modified and removed', async () => {
    const widgets = server.engine.resource('widgets');
    const name = `${parent}/widgets/single`;
    widgets.put({ name, spec: { size: 1 } });
    const controller = new AbortController();
    const stream = iterate(
      server.admin.watch<{ change: Record<string, unknown> }>(`/v1/${name}:watch`, {}, controller.signal),
    );
    expect(Object.keys((await stream.next()).value!.change)).toEqual(['current']);
    widgets.patch(name, (d) => ({ ...d, spec: { size: 2 } }));
    expect(Object.keys((await stream.next()).value!.change)).toEqual(['modified']);
    widgets.remove(name);
    expect((await stream.next()).value!.change).toEqual({ removed: { name, viewIndex: 0 } });
    controller.abort();
  });
});

describeStorages('stateless watch resets (engine level)', (fresh) => {
  const parent = 'projects/reset/regions/r1';
  const setup = (retain?: number) => {
    const engine = new ResourceEngine(fresh(), { changeLogRetain: retain });
    return { engine, widgets: engine.register(widgetDefinition) };
  };

  it('a backlog overflow mid-chunk sends a soft reset and replays from the last committed token', async () => {
    const { widgets } = setup();
    widgets.put({ name: `${parent}/widgets/x0`, spec: { size: 0 } });
    const controller = new AbortController();
    const watch = watchStateless(widgets, { parent, type: 'STATELESS', maxChunkSize: 1 }, controller.signal, {
      queueCapacity: 5,
    });
    const snap = await collectEngine(watch, (r) => r.isCurrent);
    const committedToken = snap.at(-1)!.resumeToken;
    await watch.next(); // size message

    for (let i = 1; i <= 3; i++) widgets.put({ name: `${parent}/widgets/x${i}`, spec: { size: i } });
    const firstChunk = (await watch.next()).value as WatchCollectionResponse; // one chunk of three, not current
    expect(firstChunk.isCurrent).toBe(false);
    for (let i = 4; i <= 12; i++) widgets.put({ name: `${parent}/widgets/x${i}`, spec: { size: i } }); // overflow
    const after = await collectEngine(watch, (r) => r.isCurrent && r.changes.length > 0 && !r.isSoftReset);
    controller.abort();
    expect(after[0]!.isSoftReset).toBe(true);
    const replayed = after
      .slice(1)
      .flatMap((r) => r.changes.map((c) => ('current' in c ? c.current['widget'] : undefined)));
    expect(replayed.map((w) => (w as Widget).name.slice(-3))).toEqual(
      Array.from({ length: 12 }, (_, i) => `/x${i + 1}`.slice(-3)),
    );
    expect(after.at(-1)!.resumeToken).not.toBe(committedToken);
  });

  it('a resume token older than the change log gives a hard reset and a new snapshot', async () => {
    const { engine, widgets } = setup(10);
    widgets.put({ name: `${parent}/widgets/y0`, spec: { size: 0 } });
    const first = new AbortController();
    const w1 = watchStateless(widgets, { parent, type: 'STATELESS' }, first.signal);
    const token = (await collectEngine(w1, (r) => r.isCurrent)).at(-1)!.resumeToken;
    first.abort();
    engine.transaction(() => {
      for (let i = 0; i < 1100; i++) widgets.put({ name: `${parent}/widgets/y0`, spec: { size: i + 1 } });
    });
    const second = new AbortController();
    const w2 = watchStateless(widgets, { parent, type: 'STATELESS', resumeToken: token }, second.signal);
    const got = await collectEngine(w2, (r) => r.isCurrent);
    second.abort();
    expect(got[0]).toMatchObject({ isHardReset: true, changes: [] });
    expect(got.at(-1)!.changes).toEqual([{ current: { widget: expect.objectContaining({ spec: { size: 1100 } }) } }]);
  });
});

/** Engine-level watches here get no memo, so every response is an object. */
async function collectEngine(
  gen: AsyncGenerator<WatchCollectionResponse | SerializedResponse>,
  until: (r: WatchCollectionResponse) => boolean,
): Promise<WatchCollectionResponse[]> {
  const out: WatchCollectionResponse[] = [];
  for (;;) {
    const step = await gen.next();
    if (step.done) return out;
    const value = step.value as WatchCollectionResponse;
    out.push(value);
    if (until(value)) return out;
  }
}
