import { invalidArgument } from '../errors/api-error.js';
import type { FieldTree } from './field-tree.js';

/** 'os_version' and 'os-version' → 'osVersion'; lowerCamel stays as it is. */
export const toLowerCamel = (segment: string): string =>
  segment.replace(/[_-]+([a-zA-Z0-9])/g, (_, next: string) => next.toUpperCase());

/**
 * Normalises one dotted path against the tree: member segments become lowerCamel, map keys stay
 * verbatim. Returns null when the path is not in the tree.
 */
export function normalizePath(path: string, tree: FieldTree): string | null {
  const out: string[] = [];
  let node: FieldTree = tree;
  for (const segment of path.split('.')) {
    if (segment === '') return null;
    if (node.kind === 'leaf') return null;
    if (node.kind === 'map') {
      out.push(segment);
      node = node.value;
      continue;
    }
    const name = Object.hasOwn(node.members, segment) ? segment : toLowerCamel(segment);
    if (!Object.hasOwn(node.members, name)) return null;
    const member = node.members[name];
    if (member === undefined) return null;
    out.push(name);
    node = member;
  }
  return out.join('.');
}

/**
 * A field mask from a query parameter: comma-separated and/or repeated paths in snake_case,
 * lowerCamel or kebab-case. Returns normalised, de-duplicated paths in input order; throws
 * INVALID_ARGUMENT on the first unknown path.
 */
export function parseFieldMask(input: string | readonly string[] | undefined, tree: FieldTree): string[] {
  if (input === undefined) return [];
  const raw = (typeof input === 'string' ? [input] : input).flatMap((part) => part.split(','));
  const paths = new Set<string>();
  for (const path of raw.map((p) => p.trim()).filter((p) => p !== '')) {
    const normalized = normalizePath(path, tree);
    if (normalized === null) throw invalidArgument(`unknown field "${path}" in field mask`);
    paths.add(normalized);
  }
  return [...paths];
}
