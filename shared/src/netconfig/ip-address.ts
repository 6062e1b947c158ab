import { isIPv4, isIPv6 } from 'node:net';

export type IpFamily = 'ipv4' | 'ipv6';

export interface Cidr {
  address: string;
  prefixLength: number;
  family: IpFamily;
}

/** The family of a plain IP address (no prefix, no zone), or undefined when it is none. */
export function ipFamily(text: string): IpFamily | undefined {
  if (isIPv4(text)) return 'ipv4';
  // node accepts a zone ("fe80::1%eth0"): not an address a configuration may name
  if (isIPv6(text) && !text.includes('%')) return 'ipv6';
  return undefined;
}

export const isIpAddress = (text: string): boolean => ipFamily(text) !== undefined;

/** `10.0.0.1/24` or `2001:db8::1/64` (the address part need not be the network address, as in netplan). */
export function parseCidr(text: string): Cidr | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const address = text.slice(0, slash);
  const prefix = text.slice(slash + 1);
  const family = ipFamily(address);
  if (family === undefined || !/^\d{1,3}$/.test(prefix)) return undefined;
  const prefixLength = Number(prefix);
  if (prefixLength > (family === 'ipv4' ? 32 : 128)) return undefined;
  return { address, prefixLength, family };
}

export const isCidr = (text: string): boolean => parseCidr(text) !== undefined;

/** An IP address or a CIDR block, e.g. for allow-lists. */
export const isIpOrCidr = (text: string): boolean => isIpAddress(text) || isCidr(text);

/** The family of an IP address or CIDR block. */
export const familyOf = (text: string): IpFamily | undefined => ipFamily(text) ?? parseCidr(text)?.family;
