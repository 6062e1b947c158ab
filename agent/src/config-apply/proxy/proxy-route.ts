import { BlockList, isIP } from 'node:net';
import { connectThroughProxy } from './connect-tunnel.js';
import type { CreateConnection } from './connect-tunnel.js';
import type { ProxySettings } from './proxy-settings.js';

/** Which proxy, if any, a connection to `target` goes through now (undefined: direct). */
export type ProxyChooser = (target: URL) => URL | undefined;

/** The proxy for `target` under `settings`: https/wss use httpsProxy, http/ws httpProxy, unless NO_PROXY matches. */
export function proxyFor(settings: ProxySettings, target: URL): URL | undefined {
  const secure = target.protocol === 'https:' || target.protocol === 'wss:';
  const proxy = secure ? settings.httpsProxy : settings.httpProxy;
  if (proxy === undefined) return undefined;
  const port = target.port === '' ? (secure ? 443 : 80) : Number(target.port);
  return bypassesProxy(settings.noProxy, target.hostname, port) ? undefined : proxy;
}

/** How a request to `target` is connected: through a proxy tunnel, or undefined for directly. */
export type ConnectVia = (target: URL) => CreateConnection | undefined;

/** The ConnectVia of a chooser. */
export const connectVia =
  (chooser: ProxyChooser): ConnectVia =>
  (target) =>
    proxiedConnection(chooser, target).createConnection;

/**
 * The request options that send a request for `target` through the chosen proxy: `createConnection` opening a
 * CONNECT tunnel (TLS to the target inside it for https/wss), or nothing for a direct connection.
 */
export function proxiedConnection(
  chooser: ProxyChooser | undefined,
  target: URL,
): { createConnection?: CreateConnection } {
  const proxy = chooser?.(target);
  if (proxy === undefined) return {};
  const secure = target.protocol === 'https:' || target.protocol === 'wss:';
  return { createConnection: connectThroughProxy(proxy, secure) };
}

/**
 * NO_PROXY as curl and most tools read it: `*` matches everything; `example.com`, `.example.com` and `*.example.com`
 * match that domain and its subdomains; an IP matches itself, a CIDR its block; `host:port` only that port.
 */
export function bypassesProxy(noProxy: readonly string[], hostname: string, port: number): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  for (const entry of noProxy) {
    if (entry === '*') return true;
    const { name, entryPort } = splitPort(entry);
    if (entryPort !== undefined && entryPort !== port) continue;
    if (matchesAddress(name, host)) return true;
    const domain = name.replace(/^\*?\./, '');
    if (domain !== '' && isIP(domain) === 0 && (host === domain || host.endsWith(`.${domain}`))) return true;
  }
  return false;
}

function splitPort(entry: string): { name: string; entryPort?: number } {
  const bracketed = /^\[(.*)\](?::(\d+))?$/.exec(entry);
  if (bracketed !== null) {
    return { name: bracketed[1] ?? '', ...(bracketed[2] === undefined ? {} : { entryPort: Number(bracketed[2]) }) };
  }
  const withPort = /^([^:]+):(\d+)$/.exec(entry);
  if (withPort !== null) return { name: withPort[1] ?? '', entryPort: Number(withPort[2]) };
  return { name: entry };
}

function matchesAddress(entry: string, host: string): boolean {
  const family = isIP(host);
  if (family === 0) return false;
  const type = family === 6 ? 'ipv6' : 'ipv4';
  const slash = entry.indexOf('/');
  const address = slash < 0 ? entry : entry.slice(0, slash);
  if (isIP(address) !== family || (slash >= 0 && !/^\d{1,3}$/.test(entry.slice(slash + 1)))) return false;
  const block = new BlockList();
  try {
    if (slash < 0) block.addAddress(address, type);
    else block.addSubnet(address, Number(entry.slice(slash + 1)), type);
  } catch {
    return false; // a prefix out of range names nothing
  }
  return block.check(host, type);
}
