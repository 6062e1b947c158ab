import { invalidArgument } from '@outpost/shared';

export type Nested = { [key: string]: unknown };

const camel = (segment: string): string => segment.replace(/[_-]([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/**
 * grpc-gateway style query parameters: dotted keys build nested objects (`cas.fieldMask`), repeated keys make
 * arrays. Request field names may be snake_case or lowerCamel; inside `cas.conditionalState` keys are resource
 * JSON names and kept as written.
 */
export function nestQuery(query: Record<string, unknown>): Nested {
  const out: Nested = {};
  for (const [rawKey, value] of Object.entries(query)) {
    const segments = rawKey.split('.');
    let node = out;
    let verbatim = false;
    segments.forEach((segment, i) => {
      const key = verbatim ? segment : camel(segment);
      if (key === 'conditionalState') verbatim = true;
      if (i === segments.length - 1) {
        node[key] = value;
        return;
      }
      const child = node[key];
      if (child === undefined) node[key] = {};
      else if (child === null || typeof child !== 'object' || Array.isArray(child)) {
        throw invalidArgument(`query parameter "${rawKey}" conflicts with another parameter`);
      }
      node = node[key] as Nested;
    });
  }
  return out;
}

export function only<K extends string>(params: Nested, allowed: readonly K[]): Partial<Record<K, unknown>> {
  for (const key of Object.keys(params)) {
    if (!allowed.includes(key as K)) {
      throw invalidArgument(`unknown query parameter "${key}" (allowed: ${allowed.join(', ') || 'none'})`);
    }
  }
  return params as Partial<Record<K, unknown>>;
}

export function asString(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) {
    if (value.length === 1) return asString(value[0], name);
    throw invalidArgument(`query parameter "${name}" given more than once`);
  }
  if (typeof value !== 'string') throw invalidArgument(`query parameter "${name}" must be a string`);
  return value;
}

export function asStrings(value: unknown, name: string): string[] | undefined {
  if (value === undefined) return undefined;
  const list = Array.isArray(value) ? value : [value];
  return list.map((v) => {
    if (typeof v !== 'string') throw invalidArgument(`query parameter "${name}" must be strings`);
    return v;
  });
}

export function asBoolean(value: unknown, name: string): boolean | undefined {
  if (typeof value === 'boolean' || value === undefined) return value;
  const text = asString(value, name);
  if (text === 'true' || text === '1' || text === '') return true;
  if (text === 'false' || text === '0') return false;
  throw invalidArgument(`query parameter "${name}" must be true or false`);
}

export function asInteger(value: unknown, name: string): number | undefined {
  if (typeof value === 'number' || value === undefined) {
    if (value !== undefined && !Number.isInteger(value)) throw invalidArgument(`"${name}" must be an integer`);
    return value;
  }
  const text = asString(value, name);
  if (text === undefined || !/^-?\d+$/.test(text))
    throw invalidArgument(`query parameter "${name}" must be an integer`);
  return Number(text);
}

export function asObject(value: unknown, name: string): Nested | undefined {
  if (value === undefined) return undefined;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidArgument(`"${name}" must be an object`);
  }
  return value as Nested;
}
