import { BlockList, isIP } from 'node:net';

/** Addresses and CIDR ranges of the reverse proxies whose `X-Forwarded-For` is believed. */
export class TrustedProxies {
  private readonly list = new BlockList();

  /** Throws an Error naming the first entry that is neither an IP address nor a CIDR range. */
  constructor(readonly entries: readonly string[] = []) {
    for (const entry of entries) {
      const [address = '', prefix, extra] = entry.split('/');
      const family = isIP(address);
      const bits = family === 6 ? 128 : 32;
      const prefixLength = prefix === undefined ? bits : /^\d{1,3}$/.test(prefix) ? Number(prefix) : NaN;
      if (family === 0 || extra !== undefined || !(prefixLength >= 0 && prefixLength <= bits)) {
        throw new Error(`"${entry}" is not an IP address or CIDR range (such as 10.0.0.1 or 10.0.0.0/8)`);
      }
      this.list.addSubnet(address, prefixLength, family === 6 ? 'ipv6' : 'ipv4');
    }
  }

  has(address: string): boolean {
    const family = isIP(address);
    return family !== 0 && this.list.check(address, family === 6 ? 'ipv6' : 'ipv4');
  }
}

/**
 * The address a request comes from: the peer of the connection, or, when that peer is a trusted proxy, the
 * nearest address in `X-Forwarded-For` (read from the right) that is not itself a trusted proxy. Entries
 * left of an untrusted one were written by the client and are ignored.
 */
export function clientAddressOf(
  peerAddress: string | undefined,
  forwardedFor: string | undefined,
  trusted: TrustedProxies,
): string {
  let address = unmapped(peerAddress ?? 'unknown');
  if (forwardedFor === undefined) return address;
  const hops = forwardedFor
    .split(',')
    .map((hop) => unmapped(hop.trim()))
    .reverse();
  for (const hop of hops) {
    if (!trusted.has(address) || isIP(hop) === 0) break;
    address = hop;
  }
  return address;
}

/** The bucket failed attempts are counted in: the address, or for IPv6 its /64 (what one host is usually given). */
export function rateLimitKeyOf(address: string): string {
  if (isIP(address) !== 6) return address;
  return expandIpv6(address).slice(0, 4).join(':') + '::/64';
}

const unmapped = (address: string): string => address.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, '$1');

function expandIpv6(address: string): string[] {
  const [head = '', tail] = address.toLowerCase().split('::');
  const groupsOf = (part: string): string[] => (part === '' ? [] : part.split(':'));
  const left = groupsOf(head);
  const right = tail === undefined ? [] : groupsOf(tail);
  const missing = 8 - left.length - right.length;
  return [...left, ...Array<string>(Math.max(0, missing)).fill('0'), ...right].map((g) => g.replace(/^0+(?=.)/, ''));
}
