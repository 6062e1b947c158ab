import type { DeviceSpec } from '../resources/devices/device.js';
import type { ProblemList } from './config-problem.js';
import { childPath, quoted } from './config-problem.js';
import { isIpOrCidr } from './ip-address.js';
import { interfaceNameProblem } from './netplan/netplan-values.js';

type ProxyConfig = NonNullable<DeviceSpec['proxyConfig']>;

const HOST_PATTERN = /^(\*|(\*\.|\.)?[A-Za-z0-9_]([A-Za-z0-9_-]{0,62})(\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,62}))*)$/;
const MAX_NO_PROXY = 256;

/**
 * Checks `proxyConfig`: httpProxy and httpsProxy are http:// or https:// URLs naming a host (an optional port and
 * user:password, nothing else; empty means none); noProxy lists hosts, .domains, IPs or CIDR blocks, each with
 * an optional :port, separated by commas or spaces; proxyInterfaces are interface names.
 */
export function checkProxyConfig(config: ProxyConfig, path: string, problems: ProblemList): void {
  for (const key of ['httpProxy', 'httpsProxy'] as const) {
    const value = config[key];
    if (value === undefined) continue;
    const problem = proxyUrlProblem(value);
    if (problem !== undefined) problems.add(childPath(path, key), problem);
  }
  if (config.noProxy !== undefined) {
    const entries = config.noProxy.split(/[,\s]+/).filter((entry) => entry !== '');
    if (entries.length > MAX_NO_PROXY)
      problems.add(childPath(path, 'noProxy'), `names more than ${MAX_NO_PROXY} hosts`);
    const bad = entries.find((entry) => !isNoProxyEntry(entry));
    if (bad !== undefined) {
      problems.add(childPath(path, 'noProxy'), `${quoted(bad)} is not a host, .domain, IP address or CIDR block`);
    }
  }
  (config.proxyInterfaces ?? []).forEach((name, i) => {
    const problem = interfaceNameProblem(name);
    if (problem !== undefined) problems.add(childPath(childPath(path, 'proxyInterfaces'), i), problem);
  });
}

function proxyUrlProblem(value: string): string | undefined {
  const text = value.trim();
  if (text === '') return undefined;
  if (/[\s\p{Cc}]/u.test(text)) return `${quoted(value)} holds spaces or control characters`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `${quoted(value)} is not a URL such as "http://proxy.example.com:3128"`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `${quoted(value)}: a proxy URL is http:// or https://, not ${url.protocol}//`;
  }
  if (url.hostname === '') return `${quoted(value)} names no host`;
  if ((url.pathname !== '/' && url.pathname !== '') || url.search !== '' || url.hash !== '') {
    return `${quoted(value)}: a proxy URL has no path, query or fragment`;
  }
  return undefined;
}

function isNoProxyEntry(entry: string): boolean {
  if (isIpOrCidr(entry)) return true;
  // [v6]:port, or host:port
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(entry);
  if (bracketed !== null) return isIpOrCidr(bracketed[1] ?? '') && portOk(bracketed[2]);
  const [host = '', port, ...more] = entry.split(':');
  return more.length === 0 && portOk(port) && (HOST_PATTERN.test(host) || isIpOrCidr(host));
}

const portOk = (port: string | undefined): boolean =>
  port === undefined || (/^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65_535);
