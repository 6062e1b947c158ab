import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { widgetDefinition } from '../helpers/widgets.js';
import { ADMIN_KEY, after, parseRawResponse, rawConnection, startLoggedServer } from './logged-server.js';
import type { LoggedServer } from './logged-server.js';

const PARENT = 'projects/p1/regions/eu';

// Requests Node's HTTP parser refuses before any route sees them get the one JSON error body too.
describe('requests refused by the HTTP parser', () => {
  let s: LoggedServer;
  beforeAll(async () => {
    s = await startLoggedServer({ headersTimeoutSeconds: 1 }, { resources: [{ def: widgetDefinition }] });
  });
  afterAll(async () => s.dispose());

  it('answers a query over the header limit (a very long filter) 431 with the error body', async () => {
    const filter = `displayName="${'x'.repeat(20_000)}"`;
    const res = await s.admin(`/v1/${PARENT}/widgets?filter=${encodeURIComponent(filter)}`);
    expect(res.status).toBe(431);
    expect(await res.json()).toEqual({
      error: {
        code: 431,
        status: 'INVALID_ARGUMENT',
        message:
          'request line and headers too large: at most 16384 bytes (a long filter can go in the body of a :watch)',
      },
    });
  });

  it('answers a request that is not HTTP 400 with the error body, and closes', async () => {
    const conn = await rawConnection(s.url);
    conn.write('HELLO THERE\r\n\r\n');
    // closed after the answer, not left open: 20 s leaves room for a loaded machine (the status tells the answer)
    expect(await Promise.race([conn.closed, after(20_000, Infinity)])).toBeLessThan(20_000);
    const answer = parseRawResponse(conn.received());
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      error: { code: 400, status: 'INVALID_ARGUMENT', message: expect.stringContaining('malformed HTTP request') },
    });
  });

  it('answers a request head that stops arriving 408 with the error body', async () => {
    const conn = await rawConnection(s.url);
    conn.write(`GET /v1/${PARENT}/widgets HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${ADMIN_KEY}\r\n`);
    // Node's own headers timeout is 60 s: 20 s still tells the configured 1 s from it on a loaded machine
    expect(await Promise.race([conn.closed, after(20_000, Infinity)])).toBeLessThan(20_000);
    const answer = parseRawResponse(conn.received());
    expect(answer.status).toBe(408);
    expect(answer.body).toEqual({
      error: { code: 408, status: 'INVALID_ARGUMENT', message: 'request head timed out' },
    });
    expect(s.serverErrors()).toEqual([]);
  });
});
