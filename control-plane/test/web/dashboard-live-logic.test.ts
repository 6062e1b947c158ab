/**
 * The dashboard's live data without a browser: what watch messages do to a stateful page, the NDJSON line
 * splitting and reconnection of a watch stream (against a real HTTP server whose streams end), relative times
 * and the position of a filter error.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  StatefulPage,
  filterErrorPosition,
  relativeTime,
  singleWatchResource,
} from '../../src/web/assets/api/live-collections.js';
import { LiveWatch, lines } from '../../src/web/assets/api/watch.js';

const device = (id: string, status: Record<string, unknown> = {}) => ({
  name: `projects/p/regions/eu/devices/${id}`,
  status,
});

describe('a stateful page', () => {
  it('places added rows at their view index, moves modified ones, drops removed ones, keeps the page tokens', () => {
    const page = new StatefulPage('device');
    page.apply({
      deviceChanges: [
        { added: { device: device('b'), viewIndex: 0 } },
        { added: { device: device('a'), viewIndex: 0 } },
        { added: { device: device('c'), viewIndex: 2 } },
      ],
      isCurrent: true,
      pageTokenChange: { prevPageToken: '', nextPageToken: 'n1' },
    });
    expect(page.rows.map((r) => r.name.at(-1))).toEqual(['a', 'b', 'c']);
    expect(page.loaded).toBe(true);
    expect(page.nextPageToken).toBe('n1');
    page.apply({
      deviceChanges: [
        { modified: { device: device('a', { connectionStatus: 'CONNECTED' }), previousViewIndex: 0, viewIndex: 2 } },
        { removed: { name: device('b').name, viewIndex: 0 } },
      ],
    });
    expect(page.rows.map((r) => [r.name.at(-1), r.status])).toEqual([
      ['c', {}],
      ['a', { connectionStatus: 'CONNECTED' }],
    ]);
    page.reset();
    expect([page.rows, page.loaded]).toEqual([[], false]);
  });

  it('reads a single watch: current and modified give the resource, removed gives null', () => {
    expect(singleWatchResource({ change: { current: { device: device('a') } } }, 'device')).toEqual(device('a'));
    expect(singleWatchResource({ change: { modified: { device: device('a') } } }, 'device')).toEqual(device('a'));
    expect(singleWatchResource({ change: { removed: { name: 'x' } } }, 'device')).toBeNull();
    expect(singleWatchResource({ nothing: 1 }, 'device')).toBeUndefined();
  });
});

describe('times and filter errors', () => {
  it('says how long ago, and where a filter error points (0-based)', () => {
    const now = Date.parse('2026-11-27T12:00:00Z');
    expect(relativeTime('2026-11-27T11:59:58Z', now)).toBe('just now');
    expect(relativeTime('2026-11-27T11:59:18Z', now)).toBe('42 s ago');
    expect(relativeTime('2026-11-27T11:55:00Z', now)).toBe('5 min ago');
    expect(relativeTime('2026-11-27T09:00:00Z', now)).toBe('3 h ago');
    expect(relativeTime('2026-11-25T12:00:00Z', now)).toBe('2 d ago');
    expect(relativeTime('', now)).toBe('');
    expect(relativeTime('yesterday', now)).toBe('');
    expect(filterErrorPosition('filter: unknown field "foo" at position 1')).toBe(0);
    expect(filterErrorPosition('filter: expected a value, found end of filter at position 26')).toBe(25);
    expect(filterErrorPosition('something else')).toBe(-1);
  });
});

describe('a watch stream', () => {
  let server: ReturnType<typeof createServer>;
  let url = '';
  const bodies: unknown[] = [];
  beforeAll(async () => {
    // each stream sends two lines (the second split across writes) and ends: the client opens it again
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        bodies.push(JSON.parse(body));
        if (bodies.length === 3) {
          res.writeHead(400, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({ error: { code: 400, status: 'INVALID_ARGUMENT', message: 'filter: bad at position 3' } }),
          );
          return;
        }
        res.writeHead(200, { 'content-type': 'application/x-ndjson' });
        res.write(`{"n":${bodies.length},"resumeToken":"r${bodies.length}"}\n{"n"`);
        setTimeout(() => res.end(':"tail"}\n'), 20);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('splits lines across chunks, reopens with the body of its last token, and stops at a 400', async () => {
    const messages: Record<string, unknown>[] = [];
    const states: string[] = [];
    let token = '';
    const failed = new Promise<string>((resolve) => {
      new LiveWatch({
        fetch: (path, init) => fetch(`${url}${path}`, init),
        apiKey: 'k',
        path: '/v1/x:watch',
        retryDelaysMs: [10],
        reopenBody: () => ({ type: 'STATELESS', ...(token ? { resumeToken: token } : {}) }),
        onMessage: (m) => {
          messages.push(m);
          if (typeof m['resumeToken'] === 'string') token = m['resumeToken'];
        },
        onState: (state, error) => {
          states.push(state);
          if (state === 'failed') resolve(error?.describe() ?? '');
        },
      }).start();
    });
    expect(await failed).toBe('INVALID_ARGUMENT (400): filter: bad at position 3');
    expect(messages).toEqual([{ n: 1, resumeToken: 'r1' }, { n: 'tail' }, { n: 2, resumeToken: 'r2' }, { n: 'tail' }]);
    expect(bodies).toEqual([
      { type: 'STATELESS' },
      { type: 'STATELESS', resumeToken: 'r1' },
      { type: 'STATELESS', resumeToken: 'r2' },
    ]);
    expect(states).toEqual(['live', 'reconnecting', 'live', 'reconnecting', 'failed']);
  });

  it('lines() yields a last line without its newline', async () => {
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('a\nb'));
        controller.enqueue(new TextEncoder().encode('c'));
        controller.close();
      },
    });
    const got: string[] = [];
    for await (const line of lines(stream)) got.push(line);
    expect(got).toEqual(['a', 'bc']);
  });
});
