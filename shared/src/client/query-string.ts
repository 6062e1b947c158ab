import { invalidArgument } from '../errors/api-error.js';

/** Query parameters as an object; flattened grpc-gateway style by flattenQuery. */
export type QueryValue = Readonly<Record<string, unknown>>;

/**
 * grpc-gateway style query parameters: nested objects become dotted keys
 * (`cas.conditionalState.displayName=x`), arrays repeat their key (`names=a&names=b`),
 * undefined and null are dropped, dates become RFC 3339.
 */
export function flattenQuery(query: QueryValue): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) add(params, key, value);
  return params;
}

function add(params: URLSearchParams, key: string, value: unknown): void {
  if (value === undefined || value === null) return;
  if (Array.isArray(value)) {
    for (const item of value as unknown[]) {
      if (item !== undefined && item !== null) params.append(key, scalar(key, item));
    }
  } else if (typeof value === 'object' && !(value instanceof Date)) {
    for (const [member, inner] of Object.entries(value)) add(params, `${key}.${member}`, inner);
  } else {
    params.append(key, scalar(key, value));
  }
}

function scalar(key: string, value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  throw invalidArgument(
    `query parameter "${key}" cannot hold a ${Array.isArray(value) ? 'nested list' : typeof value}`,
  );
}
