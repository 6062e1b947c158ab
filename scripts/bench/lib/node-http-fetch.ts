import { request } from 'node:http';
import type { Agent, IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';

/**
 * A `fetch` for plain-http servers built on node:http, so a benchmark decides the connection pool itself
 * (e.g. `new Agent({ keepAlive: true, maxSockets: Infinity })` for a thousand concurrent streams) without the
 * undici package. Covers what a REST client sends: a string or URL address, method, headers, a string body
 * and an abort signal. The answer's body is a web ReadableStream, so NDJSON readers work unchanged.
 */
export function nodeHttpFetch(agent: Agent): typeof fetch {
  return (input, init = {}) =>
    new Promise<Response>((resolve, reject) => {
      const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
      if (url.protocol !== 'http:') throw new Error(`nodeHttpFetch handles http only, not ${url.protocol}`);
      if (init.body !== undefined && init.body !== null && typeof init.body !== 'string') {
        throw new Error('nodeHttpFetch sends string bodies only');
      }
      const headers = Object.fromEntries(new Headers(init.headers).entries());
      const req = request(
        url,
        { method: init.method ?? 'GET', headers, agent, signal: init.signal ?? undefined },
        (res) => {
          const status = res.statusCode ?? 500;
          const bodiless = status === 204 || status === 304 || init.method === 'HEAD';
          const body = bodiless ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
          if (bodiless) res.resume();
          resolve(new Response(body, { status, statusText: res.statusMessage ?? '', headers: toHeaders(res.headers) }));
        },
      );
      req.on('error', reject);
      req.end(init.body ?? undefined);
    });
}

function toHeaders(incoming: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [key, value] of Object.entries(incoming)) {
    if (Array.isArray(value)) for (const v of value) headers.append(key, v);
    else if (value !== undefined) headers.set(key, value);
  }
  return headers;
}
