import { createHash } from 'node:crypto';
import { invalidArgument } from '@outpost/shared';

/** A position in a listing: rows strictly after (or, for `before`, strictly before) these sort-key values. */
export interface PagePosition {
  values: unknown[];
  before: boolean;
}

interface TokenBody {
  q: string;
  v: unknown[];
  b: boolean;
}

/** Fingerprint of what a token belongs to, so a token is never applied to another query. */
export function queryFingerprint(parts: readonly unknown[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 12);
}

/** Page tokens are opaque: base64url of the sort key at the page boundary (keyset paging, stable under writes). */
export function encodePageToken(fingerprint: string, position: PagePosition): string {
  const body: TokenBody = { q: fingerprint, v: position.values, b: position.before };
  return Buffer.from(JSON.stringify(body)).toString('base64url');
}

export function decodePageToken(token: string, fingerprint: string): PagePosition {
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw invalidArgument('invalid page token');
  }
  const t = body as Partial<TokenBody> | null;
  if (!t || typeof t.q !== 'string' || !Array.isArray(t.v) || !t.v.every(isKeyValue) || typeof t.b !== 'boolean') {
    throw invalidArgument('invalid page token');
  }
  if (t.q !== fingerprint) {
    throw invalidArgument('page token does not belong to this query (parent, filter and order_by must not change)');
  }
  return { values: t.v, before: t.b };
}

/** A sort-key value as SQLite gives it back (bools are 1/0): what a token this server wrote can hold. */
function isKeyValue(value: unknown): boolean {
  return value === null || typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}
