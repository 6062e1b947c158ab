import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError } from '../../src/errors/api-error.js';
import { OutpostClient } from '../../src/client/index.js';

interface Seen {
  method: string;
  path: string;
  query: [string, string][];
  headers: IncomingMessage['headers'];
  body: string;
}

type Handler = (req: IncomingMessage, res: ServerResponse, seen: Seen) => void | Promise<void>;

let server: Server;
let base: string;
let handler: Handler;
let seen: Seen[];
let closedResponses: number;

beforeEach(async () => {
  seen = [];
  closedResponses = 0;
  handler = (_req, res) => json(res, 200, {});
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const entry: Seen = {
        method: req.method ?? '',
        path: url.pathname,
        query: [...url.searchParams],
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      };
      seen.push(entry);
      res.on('close', () => closedResponses++);
      void handler(req, res, entry);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  server.closeAllConnections();
  server.close();
  await once(server, 'close');
});

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

const client = (apiKey?: string) => new OutpostClient({ server: `${base}/`, apiKey, userAgent: 'outpost-test/1' });

describe('request', () => {
  it('sends method, path, flattened query, headers and JSON body', async () => {
    handler = (_req, res) => json(res, 200, { ok: true });
    const answer = await client('secret').request<{ ok: boolean }>('POST', '/v1/things', {
      query: { a: 1, nested: { b: 'x', c: undefined }, list: ['p', 'q'], off: false },
      body: { name: 'n' },
    });
    expect(answer).toEqual({ ok: true });
    const [req] = seen;
    expect(req?.method).toBe('POST');
    expect(req?.path).toBe('/v1/things');
    expect(req?.query).toEqual([
      ['a', '1'],
      ['nested.b', 'x'],
      ['list', 'p'],
      ['list', 'q'],
      ['off', 'false'],
    ]);
    expect(req?.headers['authorization']).toBe('Bearer secret');
    expect(req?.headers['user-agent']).toBe('outpost-test/1');
    expect(req?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(req?.body ?? '')).toEqual({ name: 'n' });
  });

  it('sends no authorization or body when not given', async () => {
    await client().request('GET', '/v1/x');
    expect(seen[0]?.headers['authorization']).toBeUndefined();
    expect(seen[0]?.headers['content-type']).toBeUndefined();
    expect(seen[0]?.body).toBe('');
  });

  it('resolves an empty answer to undefined', async () => {
    handler = (_req, res) => {
      res.writeHead(204);
      res.end();
    };
    expect(await client().request('DELETE', '/v1/x')).toBeUndefined();
  });

  it('throws the ApiError of an error body', async () => {
    handler = (_req, res) =>
      json(res, 409, { error: { code: 409, status: 'ABORTED', message: 'cas mismatch on displayName' } });
    const err = await rejection(client().request('PUT', '/v1/x'));
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe('ABORTED');
    expect((err as ApiError).message).toBe('cas mismatch on displayName');
  });

  it('derives the code of a non-JSON error from the HTTP status', async () => {
    handler = (_req, res) => {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('Cannot GET /v1/nothing');
    };
    const err = (await rejection(client().request('GET', '/v1/nothing'))) as ApiError;
    expect(err.status).toBe('NOT_FOUND');
    expect(err.message).toBe('HTTP 404: Cannot GET /v1/nothing');
  });

  it('reports malformed JSON in a success answer as INTERNAL', async () => {
    handler = (_req, res) => {
      res.writeHead(200);
      res.end('{oops');
    };
    expect(((await rejection(client().request('GET', '/v1/x'))) as ApiError).status).toBe('INTERNAL');
  });

  it('reports an unreachable server as UNAVAILABLE', async () => {
    const down = createServer();
    down.listen(0, '127.0.0.1');
    await once(down, 'listening');
    const address = `http://127.0.0.1:${(down.address() as AddressInfo).port}`;
    down.close();
    await once(down, 'close');
    const err = (await rejection(new OutpostClient({ server: address }).request('GET', '/v1/x'))) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe('UNAVAILABLE');
    expect(err.message).toMatch(new RegExp(`^cannot reach ${address}: .*ECONNREFUSED`));
  });

  it('rejects with the abort error when aborted', async () => {
    handler = () => undefined; // never answers
    const controller = new AbortController();
    const pending = client().request('GET', '/v1/slow', { signal: controller.signal });
    while (seen.length === 0) await sleep(5);
    controller.abort();
    const err = await rejection(pending);
    expect(err).not.toBeInstanceOf(ApiError);
    expect((err as Error).name).toBe('AbortError');
  });

  it('refuses a malformed server address', () => {
    expect(() => new OutpostClient({ server: 'not a url' })).toThrow(ApiError);
    expect(() => new OutpostClient({ server: 'ftp://host' })).toThrow(/http or https/);
  });

  it('uses the fetch it is given', async () => {
    const calls: string[] = [];
    const counting: typeof fetch = (input, init) => {
      calls.push(String(input));
      return fetch(input, init);
    };
    await new OutpostClient({ server: base, fetch: counting }).request('GET', '/v1/x');
    expect(calls).toEqual([`${base}/v1/x`]);
  });
});

describe('stream', () => {
  it('yields NDJSON values split across chunks, skipping blank lines', async () => {
    handler = async (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      const body = Buffer.from('{"n":1}\n\n{"n":2,"s":"é ü"}\r\n  \n{"n"', 'utf8');
      // Write byte by byte so lines and even multi-byte characters are split across chunks.
      for (const byte of body) {
        res.write(Buffer.from([byte]));
        await sleep(1);
      }
      res.end(':3}');
    };
    const values = await collect(client().stream<{ n: number }>('GET', '/v1/feed'));
    expect(values).toEqual([{ n: 1 }, { n: 2, s: 'é ü' }, { n: 3 }]);
  });

  it('throws the ApiError of an error answer before streaming', async () => {
    handler = (_req, res) =>
      json(res, 400, { error: { code: 400, status: 'INVALID_ARGUMENT', message: 'bad filter' } });
    const err = (await rejection(collect(client().stream('POST', '/v1/x:watch', { body: {} })))) as ApiError;
    expect(err.status).toBe('INVALID_ARGUMENT');
    expect(err.message).toBe('bad filter');
  });

  it('throws an error line sent inside the stream after the values before it', async () => {
    handler = (_req, res) => {
      res.writeHead(200);
      res.end('{"n":1}\n{"error":{"code":503,"status":"UNAVAILABLE","message":"store closing"}}\n{"n":2}\n');
    };
    const got: unknown[] = [];
    const err = await rejection(
      (async () => {
        for await (const v of client().stream('GET', '/v1/feed')) got.push(v);
      })(),
    );
    expect(got).toEqual([{ n: 1 }]);
    expect((err as ApiError).status).toBe('UNAVAILABLE');
    expect((err as ApiError).message).toBe('store closing');
  });

  it('reports a dropped connection as UNAVAILABLE', async () => {
    handler = async (req, res) => {
      res.writeHead(200);
      res.write('{"n":1}\n');
      await sleep(20);
      req.socket.destroy();
    };
    const got: unknown[] = [];
    const err = await rejection(
      (async () => {
        for await (const v of client().stream('GET', '/v1/feed')) got.push(v);
      })(),
    );
    expect(got).toEqual([{ n: 1 }]);
    expect((err as ApiError).status).toBe('UNAVAILABLE');
  });

  it('stops with the abort error when aborted mid-stream, closing the connection', async () => {
    handler = (_req, res) => {
      res.writeHead(200);
      res.write('{"n":1}\n');
    };
    const controller = new AbortController();
    const got: unknown[] = [];
    const err = await rejection(
      (async () => {
        for await (const v of client().stream('GET', '/v1/feed', { signal: controller.signal })) {
          got.push(v);
          controller.abort();
        }
      })(),
    );
    expect(got).toEqual([{ n: 1 }]);
    expect((err as Error).name).toBe('AbortError');
    while (closedResponses === 0) await sleep(5);
  });

  it('closes the connection when the consumer leaves early', async () => {
    handler = (_req, res) => {
      res.writeHead(200);
      res.write('{"n":1}\n{"n":2}\n');
    };
    for await (const v of client().stream<{ n: number }>('GET', '/v1/feed')) {
      expect(v).toEqual({ n: 1 });
      break;
    }
    while (closedResponses === 0) await sleep(5);
  });
});

describe('resource helpers', () => {
  it('get: GET /v1/{name} with fieldMask and view', async () => {
    handler = (_req, res, req) => json(res, 200, { name: req.path.slice(4) });
    const device = await client().get<{ name: string }>('projects/p/regions/r/devices/d1', {
      fieldMask: 'spec.osVersion',
      view: 'BASIC',
    });
    expect(device).toEqual({ name: 'projects/p/regions/r/devices/d1' });
    expect(seen[0]?.method).toBe('GET');
    expect(seen[0]?.query).toEqual([
      ['fieldMask', 'spec.osVersion'],
      ['view', 'BASIC'],
    ]);
  });

  it('get: keeps the slashes of three-segment limit ids', async () => {
    await client().get('projects/p/limits/eu-1/devices.outpost/devices');
    expect(seen[0]?.path).toBe('/v1/projects/p/limits/eu-1/devices.outpost/devices');
  });

  it('batchGet: repeated names', async () => {
    handler = (_req, res) => json(res, 200, { devices: [{ name: 'a' }], missing: ['b'] });
    const answer = await client().batchGet<{ name: string }>('devices', ['a', 'b'], { view: 'NAME' });
    expect(answer).toEqual({ devices: [{ name: 'a' }], missing: ['b'] });
    expect(seen[0]?.path).toBe('/v1/devices:batchGet');
    expect(seen[0]?.query).toEqual([
      ['view', 'NAME'],
      ['names', 'a'],
      ['names', 'b'],
    ]);
  });

  it('list: GET /v1/{parent}/{collection} with the list parameters', async () => {
    handler = (_req, res) => json(res, 200, { devices: [], nextPageToken: '' });
    await client().list('projects/p/regions/-', 'devices', {
      filter: 'status.connectionStatus = "CONNECTED"',
      orderBy: 'name desc',
      pageSize: 5,
      includePagingInfo: true,
    });
    await client().list('', 'osVersions');
    expect(seen[0]?.path).toBe('/v1/projects/p/regions/-/devices');
    expect(seen[0]?.query).toEqual([
      ['filter', 'status.connectionStatus = "CONNECTED"'],
      ['orderBy', 'name desc'],
      ['pageSize', '5'],
      ['includePagingInfo', 'true'],
    ]);
    expect(seen[1]?.path).toBe('/v1/osVersions');
  });

  it('listAll: follows nextPageToken until it is empty', async () => {
    const pages: Record<string, unknown> = {
      '': { planAssignmentRequests: [{ n: 1 }, { n: 2 }], nextPageToken: 't1' },
      t1: { planAssignmentRequests: [], nextPageToken: 't2' },
      t2: { planAssignmentRequests: [{ n: 3 }] },
    };
    handler = (_req, res, req) => json(res, 200, pages[new URLSearchParams(req.query).get('pageToken') ?? '']);
    const all = await collect(
      client().listAll<{ n: number }>(
        '',
        'planAssignmentRequests:listApprover',
        { pageSize: 2 },
        'planAssignmentRequests',
      ),
    );
    expect(all).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(seen.map((s) => s.query)).toEqual([
      [['pageSize', '2']],
      [
        ['pageSize', '2'],
        ['pageToken', 't1'],
      ],
      [
        ['pageSize', '2'],
        ['pageToken', 't2'],
      ],
    ]);
  });

  it('create: POST the resource to the collection', async () => {
    handler = (_req, res, req) => json(res, 200, JSON.parse(req.body));
    const plan = { displayName: 'Gold' };
    const created = await client().create('services/limits.outpost', 'plans', plan, {
      responseMask: { bodyMask: 'name,displayName' },
    });
    expect(created).toEqual(plan);
    expect(seen[0]?.method).toBe('POST');
    expect(seen[0]?.path).toBe('/v1/services/limits.outpost/plans');
    expect(seen[0]?.query).toEqual([['responseMask.bodyMask', 'name,displayName']]);
  });

  it('update: PUT /v1/{name} with mask, CAS and response mask in the query', async () => {
    handler = (_req, res, req) => json(res, 200, JSON.parse(req.body));
    const device = { name: 'projects/p/regions/r/devices/d1', displayName: 'new' };
    await client().update(device, {
      updateMask: 'displayName',
      allowMissing: true,
      cas: { fieldMask: 'displayName', conditionalState: { displayName: 'old' } },
      responseMask: { updatedFieldsOnly: true },
    });
    expect(seen[0]?.method).toBe('PUT');
    expect(seen[0]?.path).toBe('/v1/projects/p/regions/r/devices/d1');
    expect(JSON.parse(seen[0]?.body ?? '')).toEqual(device);
    expect(seen[0]?.query).toEqual([
      ['updateMask', 'displayName'],
      ['allowMissing', 'true'],
      ['cas.fieldMask', 'displayName'],
      ['cas.conditionalState.displayName', 'old'],
      ['responseMask.updatedFieldsOnly', 'true'],
    ]);
  });

  it('delete: DELETE /v1/{name} and resolves to nothing', async () => {
    handler = (_req, res) => json(res, 200, {});
    expect(await client().delete('services/s.outpost/plans/p1', { allowMissing: true })).toBeUndefined();
    expect(seen[0]?.method).toBe('DELETE');
    expect(seen[0]?.query).toEqual([['allowMissing', 'true']]);
  });

  it('delete: throws NOT_FOUND', async () => {
    handler = (_req, res) => json(res, 404, { error: { code: 404, status: 'NOT_FOUND', message: 'no such plan' } });
    expect(((await rejection(client().delete('services/s.outpost/plans/p1'))) as ApiError).status).toBe('NOT_FOUND');
  });

  it('watch: POSTs the watch request and yields the responses', async () => {
    handler = async (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      res.write('{"deviceChanges":[{"current":{"device":{"name":"d1"}}}],"isCurrent":true,"snapshotSize":-1}\n');
      await sleep(10);
      res.end('{"deviceChanges":[{"removed":{"name":"d1"}}],"isCurrent":true,"snapshotSize":-1}\n');
    };
    const responses = await collect(
      client().watch<{ deviceChanges: unknown[] }>('/v1/projects/p/regions/-/devices:watch', {
        type: 'STATELESS',
        filter: 'metadata.labels CONTAINS "wave:canary"',
      }),
    );
    expect(responses).toHaveLength(2);
    expect(responses[1]?.deviceChanges).toEqual([{ removed: { name: 'd1' } }]);
    expect(seen[0]?.method).toBe('POST');
    expect(JSON.parse(seen[0]?.body ?? '')).toEqual({
      type: 'STATELESS',
      filter: 'metadata.labels CONTAINS "wave:canary"',
    });
  });
});
