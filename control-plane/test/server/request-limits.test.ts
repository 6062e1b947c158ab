import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { widgetDefinition } from '../helpers/widgets.js';
import { ADMIN_KEY, after, parseRawResponse, rawConnection, startLoggedServer } from './logged-server.js';
import type { LoggedServer } from './logged-server.js';

const PARENT = 'projects/p1/regions/eu';

/** A request head as a client sends it, CRLF line ends. */
const head = (lines: string[]): string => lines.join('\r\n') + '\r\n\r\n';

describe('request bodies and connections', () => {
  let s: LoggedServer;
  beforeAll(async () => {
    s = await startLoggedServer(
      { headersTimeoutSeconds: 1, bodyTimeoutSeconds: 1, keepAliveTimeoutSeconds: 1 },
      { resources: [{ def: widgetDefinition }] },
    );
  });
  afterAll(async () => s.dispose());

  it('answers 401 to an unauthenticated body at once, without waiting for the body, and closes', async () => {
    const conn = await rawConnection(s.url);
    conn.write(
      head([
        `POST /v1/${PARENT}/widgets HTTP/1.1`,
        'Host: test',
        'Content-Type: application/json',
        'Content-Length: 8000000',
      ]),
    );
    // the body never comes: only an answer that did not wait for it arrives
    expect(await Promise.race([conn.closed.then(() => 'closed'), after(20_000, 'still open')])).toBe('closed');
    const answer = parseRawResponse(conn.received());
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ error: { code: 401, status: 'UNAUTHENTICATED' } });
  });

  it('reads at most 256 KiB of a public route (device registration) before it knows the caller', async () => {
    const conn = await rawConnection(s.url);
    conn.write(
      head([
        `POST /v1/${PARENT}/devices:register HTTP/1.1`,
        'Host: test',
        'Content-Type: application/json',
        'Content-Length: 8000000',
      ]),
    );
    expect(await Promise.race([conn.closed.then(() => 'closed'), after(20_000, 'still open')])).toBe('closed');
    const answer = parseRawResponse(conn.received());
    expect(answer.status).toBe(413);
  });

  it('answers 413 with the error body to a JSON body over the 8 MiB limit', async () => {
    const res = await s.admin(`/v1/${PARENT}/widgets`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ displayName: 'x'.repeat(9 * 1024 * 1024) }),
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({
      error: { code: 413, status: 'RESOURCE_EXHAUSTED', message: expect.stringContaining('too large') as string },
    });
  });

  it('cuts a body that stops arriving with 408 and closes the connection', async () => {
    const conn = await rawConnection(s.url);
    conn.write(
      head([
        `POST /v1/${PARENT}/widgets HTTP/1.1`,
        'Host: test',
        `Authorization: Bearer ${ADMIN_KEY}`,
        'Content-Type: application/json',
        'Content-Length: 100',
      ]) + '{"displayName":',
    );
    // Node's own request timeout is 300 s: 20 s still tells the configured 1 s from it on a loaded machine
    const closedAfter = await Promise.race([conn.closed, after(20_000, Infinity)]);
    expect(closedAfter).toBeLessThan(20_000);
    const answer = parseRawResponse(conn.received());
    expect(answer.status).toBe(408);
    expect(answer.body).toMatchObject({
      error: { code: 408, message: expect.stringContaining('timed out') as string },
    });
  });

  it('lets a slow upload that keeps coming run longer than the body timeout', async () => {
    const chunks = Array.from({ length: 10 }, (_, i) => Buffer.alloc(1000, i + 1));
    const sha256 = createHash('sha256').update(Buffer.concat(chunks)).digest('hex');
    const conn = await rawConnection(s.url);
    conn.write(
      head([
        'PUT /v1/artifacts HTTP/1.1',
        'Host: test',
        `Authorization: Bearer ${ADMIN_KEY}`,
        'Content-Type: application/octet-stream',
        `X-Content-Sha256: ${sha256}`,
        'Content-Length: 10000',
        'Connection: close',
      ]),
    );
    for (const chunk of chunks) {
      await after(300, undefined); // 3 s in all, the body timeout is 1 s
      conn.write(chunk);
    }
    await conn.closed;
    const answer = parseRawResponse(conn.received());
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ sha256, size: 10_000 });
  });

  it('closes a connection whose request head stops arriving (headers timeout)', async () => {
    const conn = await rawConnection(s.url);
    conn.write('GET /healthz HTTP/1.1\r\nHost: test\r\n');
    // Node's own headers timeout is 60 s: 20 s still tells the configured 1 s from it on a loaded machine
    expect(await Promise.race([conn.closed, after(20_000, Infinity)])).toBeLessThan(20_000);
  });

  it('closes an idle keep-alive connection after the keep-alive timeout', async () => {
    const conn = await rawConnection(s.url);
    conn.write(head(['GET /healthz HTTP/1.1', 'Host: test']));
    const closedAfter = await Promise.race([conn.closed, after(3000, Infinity)]);
    expect(parseRawResponse(conn.received()).status).toBe(200);
    expect(closedAfter).toBeLessThan(3000);
  });

  it('keeps a watch stream that stays silent longer than every timeout', async () => {
    const controller = new AbortController();
    const res = await s.admin(`/v1/${PARENT}/widgets:watch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'STATELESS' }),
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    let text = '';
    const readUntil = async (needle: string): Promise<void> => {
      while (!text.includes(needle)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended before "${needle}": ${text}`);
        text += Buffer.from(value).toString('utf8');
      }
    };
    await after(2500, undefined); // body, headers and keep-alive timeouts are 1 s
    const created = await s.admin(`/v1/${PARENT}/widgets`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: `${PARENT}/widgets/w-late` }),
    });
    expect(created.status).toBe(200);
    await readUntil('w-late');
    controller.abort();
  });
});
