import { quoted } from '../config-problem.js';
import { ipFamily, parseCidr } from '../ip-address.js';

/** Linux interface names: at most 15 bytes (IFNAMSIZ - 1); Outpost keeps them to characters safe in file names. */
const INTERFACE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,14}$/;
/** Ids of physical interfaces that `match` their device may be longer, but stay file-name safe. */
const MATCHED_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;
const MAC_ADDRESS = /^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}$/;
const DOMAIN =
  /^(?=.{1,253}$)([A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)(\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\.?$/;

export const interfaceNameProblem = (text: string): string | undefined =>
  INTERFACE_NAME.test(text)
    ? undefined
    : `${quoted(text)} is not an interface name (up to 15 letters, digits, "_", "." or "-", starting with a letter or digit)`;

export const matchedIdProblem = (text: string): string | undefined =>
  MATCHED_ID.test(text)
    ? undefined
    : `${quoted(text)} is not an id (up to 63 letters, digits, "_", "." or "-", starting with a letter or digit)`;

export const macAddressProblem = (text: string): string | undefined =>
  MAC_ADDRESS.test(text) ? undefined : `${quoted(text)} is not a MAC address such as "00:11:22:33:44:55"`;

export const domainProblem = (text: string): string | undefined =>
  DOMAIN.test(text) ? undefined : `${quoted(text)} is not a domain name`;

export const cidrProblem = (text: string): string | undefined =>
  parseCidr(text) === undefined ? `${quoted(text)} is not a CIDR address such as "10.0.0.1/24"` : undefined;

export const ipProblem = (text: string): string | undefined =>
  ipFamily(text) === undefined ? `${quoted(text)} is not an IP address` : undefined;

export const ipv4Problem = (text: string): string | undefined =>
  ipFamily(text) === 'ipv4' ? undefined : `${quoted(text)} is not an IPv4 address`;

export const ipv6Problem = (text: string): string | undefined =>
  ipFamily(text) === 'ipv6' ? undefined : `${quoted(text)} is not an IPv6 address`;

/** A route's destination: "default" or a CIDR block. */
export const routeTargetProblem = (text: string): string | undefined =>
  text === 'default' || parseCidr(text) !== undefined
    ? undefined
    : `${quoted(text)} is not "default" or a CIDR block such as "10.1.0.0/16"`;

/** printable text without control characters (SSIDs, passwords): what a configuration file can hold safely */
export const printableProblem = (text: string, min: number, max: number): string | undefined => {
  if (/\p{Cc}/u.test(text)) return 'holds control characters';
  const bytes = Buffer.byteLength(text, 'utf8');
  return bytes < min || bytes > max ? `must be ${min} to ${max} bytes long` : undefined;
};
