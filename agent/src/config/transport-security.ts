import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { isLoopbackHost } from '@outpost/shared';
import { ConfigError } from './droplet-config.js';

/** How the agent may reach its control plane (--insecure, --ca-file). */
export interface TransportSecurity {
  /** plain http:// and ws:// are allowed to a server that is not on loopback (warned at every connect) */
  insecure?: boolean;
  /** PEM of the CA certificates trusted for the server, instead of the system's */
  ca?: string;
}

/** What a connection to `server` will be: encrypted, plain on loopback, or plain across a network by --insecure. */
export type Transport = 'encrypted' | 'loopback' | 'insecure';

/**
 * Throws ConfigError for plain http:// or ws:// to a server that is not on loopback unless `insecure`: the device
 * credential and everything the agent sends would cross the network in the clear.
 */
export function transportTo(server: string, security: TransportSecurity): Transport {
  const url = new URL(server);
  if (url.protocol === 'https:' || url.protocol === 'wss:') return 'encrypted';
  if (isLoopbackHost(url.hostname)) return 'loopback';
  if (security.insecure === true) return 'insecure';
  throw new ConfigError(
    `refusing ${url.protocol}// to ${url.host}: the device credential would cross the network in the clear; ` +
      'use https:// (with --ca-file for a private CA), or start with --insecure to allow it',
  );
}

/** Reads the --ca-file: PEM certificates, each checked to parse. */
export async function readCaFile(path: string): Promise<string> {
  let pem: string;
  try {
    pem = await readFile(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`--ca-file: cannot read ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const certificates = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  if (certificates.length === 0) throw new ConfigError(`--ca-file: ${path} holds no PEM certificate`);
  for (const certificate of certificates) {
    try {
      new X509Certificate(certificate);
    } catch (err) {
      throw new ConfigError(`--ca-file: ${path}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return pem;
}

/** Node's codes for a server certificate that does not verify against the trusted CAs (or names another host). */
const UNTRUSTED_CERTIFICATE_CODES: ReadonlySet<string> = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_SIGNATURE_FAILURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** True when `err` says the server's TLS certificate is not trusted (the operator may need --ca-file). */
export function isUntrustedCertificate(err: unknown): boolean {
  const code = typeof err === 'object' && err !== null && 'code' in err ? err.code : undefined;
  return typeof code === 'string' && UNTRUSTED_CERTIFICATE_CODES.has(code);
}
