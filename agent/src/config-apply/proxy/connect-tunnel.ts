import type { ClientRequestArgs } from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';

/** How long the proxy may take to open a tunnel (connect and answer CONNECT). */
const TUNNEL_TIMEOUT_MS = 15_000;

/** The `createConnection` option of node:http/https requests and of ws: a socket produced, here asynchronously. */
export type CreateConnection = NonNullable<ClientRequestArgs['createConnection']>;

/** A proxy that refused, or failed, to open a tunnel; its message names the proxy and the target. */
export class ProxyTunnelError extends Error {
  override readonly name = 'ProxyTunnelError';
}

/**
 * Opens a TCP tunnel to `host:port` through an HTTP proxy (`http://` or `https://`, with `user:password@` sent as
 * Proxy-Authorization Basic): sends `CONNECT host:port` and resolves with the socket once the proxy answers 2xx.
 */
export function openConnectTunnel(
  proxy: URL,
  target: { host: string; port: number },
  timeoutMs = TUNNEL_TIMEOUT_MS,
): Promise<Socket> {
  const authority = `${isIP(target.host) === 6 ? `[${target.host}]` : target.host}:${target.port}`;
  const headers: Record<string, string> = { host: authority };
  if (proxy.username !== '') {
    const credentials = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
    headers['proxy-authorization'] = `Basic ${Buffer.from(credentials).toString('base64')}`;
  }
  const secure = proxy.protocol === 'https:';
  const request = secure ? httpsRequest : httpRequest;
  const where = `the proxy ${proxy.host}`;
  return new Promise((resolve, reject) => {
    const req = request({
      host: proxy.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: proxy.port === '' ? (secure ? 443 : 80) : Number(proxy.port),
      method: 'CONNECT',
      path: authority,
      headers,
      agent: false,
      timeout: timeoutMs,
    });
    req.once('connect', (response, socket, head) => {
      const status = response.statusCode ?? 0;
      if (status < 200 || status > 299) {
        socket.destroy();
        reject(new ProxyTunnelError(`${where} refused CONNECT ${authority}: HTTP ${status}`));
        return;
      }
      req.setTimeout(0);
      if (head.length > 0) socket.unshift(head);
      resolve(socket);
    });
    req.once('response', (response) => {
      // a server that is no proxy answers CONNECT like any request
      response.resume();
      req.destroy();
      reject(new ProxyTunnelError(`${where} did not open a tunnel to ${authority}: HTTP ${response.statusCode ?? 0}`));
    });
    req.once('timeout', () =>
      req.destroy(new ProxyTunnelError(`${where} did not answer CONNECT within ${timeoutMs} ms`)),
    );
    req.once('error', (err) =>
      reject(err instanceof ProxyTunnelError ? err : new ProxyTunnelError(`${where}: ${err.message}`, { cause: err })),
    );
    req.end();
  });
}

/**
 * A `createConnection` for node:http/https requests and ws that reaches the request's host through `proxy`; for a
 * `secure` target, TLS runs inside the tunnel to the target itself (its certificate checked against the request's
 * `ca`, or the system's), so the proxy sees only ciphertext.
 */
export function connectThroughProxy(proxy: URL, secure: boolean): CreateConnection {
  return (options, created) => {
    const host = options.host ?? options.hostname ?? 'localhost';
    const port = Number(options.port ?? options.defaultPort ?? (secure ? 443 : 80));
    openConnectTunnel(proxy, { host, port }).then(
      (socket) => {
        if (!secure) {
          created(null, socket);
          return;
        }
        const tlsOptions = options as ClientRequestArgs & { ca?: string | Buffer; servername?: string };
        const servername = tlsOptions.servername ?? (isIP(host) === 0 ? host : undefined);
        // `host` is what the certificate is checked against (an IP target has no SNI but must match its IP SAN)
        const tls: Duplex = tlsConnect({
          socket,
          host,
          ...(servername === undefined ? {} : { servername }),
          ...(tlsOptions.ca === undefined ? {} : { ca: tlsOptions.ca }),
        });
        created(null, tls);
      },
      // node's typing wants a socket with the error; it reads none when the error is set
      (err: unknown) => created(err instanceof Error ? err : new Error(String(err)), undefined as unknown as Duplex),
    );
    return undefined;
  };
}
