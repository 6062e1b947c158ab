import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, MAX_FILTER_DEPTH, MAX_FILTER_LENGTH } from '@outpost/shared';
import { startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { widgetDefinition } from '../helpers/widgets.js';
import type { Widget } from '../helpers/widgets.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ resources: [{ def: widgetDefinition }] });
});
afterAll(async () => server.dispose());

interface Page {
  widgets: Widget[];
  nextPageToken: string;
  prevPageToken: string;
  currentOffset: number;
  totalResultsCount: number;
}

describe('list paging', () => {
  it('returns every record that existed throughout exactly once while another writer inserts and deletes', async () => {
    const parent = 'projects/paging/regions/r1';
    const widgets = server.engine.resource('widgets');
    const id = (i: number): string => `${parent}/widgets/w${String(i).padStart(5, '0')}`;
    server.engine.transaction(() => {
      for (let i = 0; i < 10_000; i++) widgets.put({ name: id(i), spec: { size: i % 13 } });
    });
    const deleted = new Set<string>();
    const seen = new Map<string, number>();
    let token = '';
    let extra = 20_000;
    let pages = 0;
    do {
      const page = await server.admin.list<Widget>(parent, 'widgets', { pageSize: 7, pageToken: token || undefined });
      for (const w of page.widgets ?? []) seen.set(w.name, (seen.get(w.name) ?? 0) + 1);
      token = page.nextPageToken ?? '';
      pages++;
      // the other writer: insert new records around the cursor and delete some old ones
      server.engine.transaction(() => {
        for (let k = 0; k < 3; k++) widgets.put({ name: id(extra++ % 30_000), spec: { size: 1 } });
        const victim = id((pages * 37) % 10_000);
        if (widgets.remove(victim)) deleted.add(victim);
      });
    } while (token);

    for (let i = 0; i < 10_000; i++) {
      if (deleted.has(id(i))) continue;
      expect(seen.get(id(i)), id(i)).toBe(1);
    }
    expect([...seen.values()].every((n) => n === 1)).toBe(true);
  }, 120_000);

  it('orders by several fields asc/desc with prev and next tokens and paging info', async () => {
    const parent = 'projects/order/regions/r1';
    const widgets = server.engine.resource('widgets');
    server.engine.transaction(() => {
      for (let i = 0; i < 25; i++) {
        widgets.put({
          name: `${parent}/widgets/o${String(i).padStart(2, '0')}`,
          spec: i % 5 === 0 ? {} : { color: ['red', 'blue', 'green'][i % 3], size: i % 4 },
        });
      }
    });
    const all = await server.admin.list<Widget>(parent, 'widgets', {
      orderBy: 'spec.color desc, spec.size',
      pageSize: 100,
    });
    const keyOf = (w: Widget): [string | null, number | null, string] => [
      w.spec?.color ?? null,
      w.spec?.size ?? null,
      w.name,
    ];
    const expected = [...all.widgets!].sort((a, b) => {
      const [ca, sa, na] = keyOf(a);
      const [cb, sb, nb] = keyOf(b);
      if (ca !== cb) return ca === null ? 1 : cb === null ? -1 : ca < cb ? 1 : -1; // desc: nulls last
      if (sa !== sb) return sa === null ? -1 : sb === null ? 1 : sa - sb; // asc: nulls first
      return na < nb ? -1 : 1;
    });
    expect(all.widgets!.map((w) => w.name)).toEqual(expected.map((w) => w.name));

    const q = { orderBy: 'spec.color desc, spec.size', pageSize: 10, includePagingInfo: true };
    const p1 = (await server.admin.list<Widget>(parent, 'widgets', q)) as unknown as Page;
    expect(p1.prevPageToken).toBe('');
    expect(p1.currentOffset).toBe(0);
    expect(p1.totalResultsCount).toBe(25);
    const p2 = (await server.admin.list<Widget>(parent, 'widgets', {
      ...q,
      pageToken: p1.nextPageToken,
    })) as unknown as Page;
    expect(p2.currentOffset).toBe(10);
    const p3 = (await server.admin.list<Widget>(parent, 'widgets', {
      ...q,
      pageToken: p2.nextPageToken,
    })) as unknown as Page;
    expect(p3.widgets).toHaveLength(5);
    expect(p3.nextPageToken).toBe('');
    const back = (await server.admin.list<Widget>(parent, 'widgets', {
      ...q,
      pageToken: p3.prevPageToken,
    })) as unknown as Page;
    expect(back.widgets.map((w) => w.name)).toEqual(p2.widgets.map((w) => w.name));
    expect([...p1.widgets, ...p2.widgets, ...p3.widgets].map((w) => w.name)).toEqual(expected.map((w) => w.name));
  });

  it('refuses a token from another query and bad page sizes', async () => {
    const parent = 'projects/order/regions/r1';
    const p1 = await server.admin.list<Widget>(parent, 'widgets', { pageSize: 3 });
    await expect(
      server.admin.list(parent, 'widgets', { pageSize: 3, pageToken: p1.nextPageToken, filter: 'spec.size = 1' }),
    ).rejects.toMatchObject({ status: 'INVALID_ARGUMENT' });
    await expect(server.admin.list(parent, 'widgets', { pageSize: -1 })).rejects.toMatchObject({
      status: 'INVALID_ARGUMENT',
    });
    const capped = await server.admin.list(parent, 'widgets', { pageSize: 5000 });
    expect(capped.widgets).toHaveLength(25);
  });

  it('lists across regions with a - wildcard, filters on labels and versions', async () => {
    const widgets = server.engine.resource('widgets');
    widgets.put({
      name: 'projects/wild/regions/ra/widgets/x1',
      metadata: { labels: { wave: 'canary' } },
      spec: { color: 'X' },
    });
    widgets.put({ name: 'projects/wild/regions/rb/widgets/x2', spec: { color: 'X' } });
    widgets.put({ name: 'projects/other/regions/ra/widgets/x3', spec: { color: 'X' } });
    const all = await server.admin.list<Widget>('projects/wild/regions/-', 'widgets');
    expect(all.widgets!.map((w) => w.name)).toEqual([
      'projects/wild/regions/ra/widgets/x1',
      'projects/wild/regions/rb/widgets/x2',
    ]);
    const canary = await server.admin.list<Widget>('projects/wild/regions/-', 'widgets', {
      filter: 'metadata.labels CONTAINS "wave:canary" AND spec.color = "X"',
    });
    expect(canary.widgets!.map((w) => w.name)).toEqual(['projects/wild/regions/ra/widgets/x1']);
    await expect(
      server.admin.list('projects/wild/regions/-', 'widgets', { filter: 'spec.color = ' }),
    ).rejects.toMatchObject({
      status: 'INVALID_ARGUMENT',
    });
  });
});

describe('list input bounds', () => {
  const parent = 'projects/bounds/regions/r1';
  beforeAll(() => {
    const widgets = server.engine.resource('widgets');
    widgets.put({ name: `${parent}/widgets/b1`, metadata: { labels: { t7: '' } }, spec: { size: 1 } });
    widgets.put({ name: `${parent}/widgets/b2`, spec: { size: 2 } });
  });

  /** The refusal of a call as { status, message }; fails the test when the call succeeds. */
  const refusal = async (call: Promise<unknown>): Promise<{ status: string; message: string }> => {
    try {
      await call;
    } catch (err) {
      if (err instanceof ApiError) return { status: err.status, message: err.message };
      throw err;
    }
    throw new Error('expected the call to be refused');
  };
  /** The first message of a collection watch (a refused watch throws its ApiError). */
  const firstWatchMessage = async (body: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const stream = server.admin.watch<Record<string, unknown>>(`/v1/${parent}/widgets:watch`, body);
    try {
      const first = await stream.next();
      if (first.done) throw new Error('the watch ended without a message');
      return first.value;
    } finally {
      await stream.return(undefined);
    }
  };

  it('leaves currentOffset and totalResultsCount out unless includePagingInfo=true', async () => {
    for (const query of [{}, { includePagingInfo: false }]) {
      const page = await server.admin.list<Widget>(parent, 'widgets', { pageSize: 1, ...query });
      expect(Object.keys(page).sort()).toEqual(['nextPageToken', 'prevPageToken', 'widgets']);
    }
    const counted = await server.admin.list<Widget>(parent, 'widgets', { pageSize: 1, includePagingInfo: true });
    expect(counted).toMatchObject({ currentOffset: 0, totalResultsCount: 2 });
  });

  it('refuses filters nested too deep with INVALID_ARGUMENT at the opening that goes too deep', async () => {
    const deep = '('.repeat(MAX_FILTER_DEPTH + 1) + 'spec.size = 1' + ')'.repeat(MAX_FILTER_DEPTH + 1);
    const expected = {
      status: 'INVALID_ARGUMENT',
      message: `filter: nested deeper than ${MAX_FILTER_DEPTH} levels of parentheses and NOT at position ${MAX_FILTER_DEPTH + 1}`,
    };
    expect(await refusal(server.admin.list(parent, 'widgets', { filter: deep }))).toEqual(expected);
    const nots = 'NOT '.repeat(2_000) + 'spec.size = 1';
    for (const type of ['STATEFUL', 'STATELESS']) {
      expect(await refusal(firstWatchMessage({ type, filter: deep }))).toEqual(expected);
      expect(await refusal(firstWatchMessage({ type, filter: nots }))).toMatchObject({
        status: 'INVALID_ARGUMENT',
        message: expect.stringContaining(`nested deeper than ${MAX_FILTER_DEPTH} levels`) as unknown,
      });
    }
    const atLimit = '('.repeat(MAX_FILTER_DEPTH) + 'spec.size = 1' + ')'.repeat(MAX_FILTER_DEPTH);
    const found = await server.admin.list<Widget>(parent, 'widgets', { filter: atLimit });
    expect(found.widgets!.map((w) => w.name)).toEqual([`${parent}/widgets/b1`]);
  });

  it('refuses filters longer than the bound, and runs long ones within it on the store', async () => {
    const parens = '('.repeat(10_000) + 'spec.size = 1' + ')'.repeat(10_000);
    for (const type of ['STATEFUL', 'STATELESS']) {
      expect(await refusal(firstWatchMessage({ type, filter: parens }))).toEqual({
        status: 'INVALID_ARGUMENT',
        message: `filter: longer than ${MAX_FILTER_LENGTH} characters (${parens.length}) at position ${MAX_FILTER_LENGTH + 1}`,
      });
    }
    // 1,600 alternatives, each an EXISTS in SQL: once a chain deeper than SQLite allows (500 INTERNAL)
    const labels = Array.from({ length: 1_600 }, (_, i) => `"t${i % 9}"`).join(',');
    const message = await firstWatchMessage({ type: 'STATEFUL', filter: `metadata.labels CONTAINS ANY (${labels})` });
    const added = (message['widgetChanges'] as { added?: { widget: Widget } }[]).map((c) => c.added?.widget.name);
    expect(added).toEqual([`${parent}/widgets/b1`]);
  });

  it('refuses a forged page token whose key values are not what the server writes with "invalid page token"', async () => {
    const first = await server.admin.list<Widget>(parent, 'widgets', { pageSize: 1 });
    const real = JSON.parse(Buffer.from(first.nextPageToken!, 'base64url').toString('utf8')) as Record<string, unknown>;
    const forge = (v: unknown): string => Buffer.from(JSON.stringify({ ...real, v })).toString('base64url');
    for (const values of [[{ name: 'x' }], [true], [[1]], [], ['a', 'b']]) {
      expect(await refusal(server.admin.list(parent, 'widgets', { pageSize: 1, pageToken: forge(values) }))).toEqual({
        status: 'INVALID_ARGUMENT',
        message: 'invalid page token',
      });
    }
    const again = await server.admin.list<Widget>(parent, 'widgets', { pageSize: 1, pageToken: forge(real['v']) });
    expect(again.widgets!.map((w) => w.name)).toEqual([`${parent}/widgets/b2`]);
  });
});
