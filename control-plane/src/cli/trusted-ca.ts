import { readFileSync } from 'node:fs';
import { Agent } from 'undici';
import { UsageError } from './usage-error.js';

/** Reads --ca-file (or OUTPOST_CA_FILE): PEM certificates. */
export function readCaFile(path: string): string {
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`--ca-file: cannot read ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new UsageError(`--ca-file: ${path} holds no PEM certificate`);
  return pem;
}

/**
 * A fetch that trusts only the CA certificates in `ca` for an https server. undici's dispatcher is what Node's
 * fetch takes for connection settings; undici 6 is the major version Node 20 and 22 build their fetch on.
 */
export function fetchTrusting(ca: string, base: typeof fetch = fetch): typeof fetch {
  const dispatcher = new Agent({ connect: { ca } });
  return (input, init) => base(input, { ...init, dispatcher });
}
