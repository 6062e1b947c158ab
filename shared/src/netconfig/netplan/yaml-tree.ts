import { isAlias, isMap, isScalar, isSeq, parseDocument } from 'yaml';
import type { ConfigProblem } from '../config-problem.js';
import { childPath } from '../config-problem.js';

/**
 * A YAML document (YAML 1.2 core schema, as the agent reads it): scalars typed (true is a boolean, 1500 a number,
 * 00:11:22:33:44:55 a string), mappings as Maps so that no key (not even "__proto__") is special.
 */
export type YamlScalar = string | number | boolean | null;
export type YamlValue = YamlScalar | YamlValue[] | YamlMapping;
export type YamlMapping = ReadonlyMap<string, YamlValue>;

export const MAX_YAML_CHARS = 65_536;
const MAX_DEPTH = 24;

export type YamlTreeParse = { ok: true; value: YamlValue } | { ok: false; problems: ConfigProblem[] };

/** Parses one YAML document into a tree of strings, lists and mappings; refuses aliases and non-scalar keys. */
export function parseYamlTree(text: string): YamlTreeParse {
  if (text.length > MAX_YAML_CHARS) return failure('', `is longer than ${MAX_YAML_CHARS} characters`);
  let doc;
  try {
    doc = parseDocument(text, { uniqueKeys: true, prettyErrors: true });
  } catch {
    return failure('', 'is not valid YAML (nested too deeply)');
  }
  const error = doc.errors[0];
  if (error !== undefined) {
    return failure('', `is not valid YAML: ${error.message.split('\n')[0] ?? error.code}`);
  }
  const problems: ConfigProblem[] = [];
  const value = toTree(doc.contents, '', 0, problems);
  return problems.length === 0 ? { ok: true, value } : { ok: false, problems };
}

const failure = (path: string, message: string): YamlTreeParse => ({ ok: false, problems: [{ path, message }] });

function toTree(node: unknown, path: string, depth: number, problems: ConfigProblem[]): YamlValue {
  if (depth > MAX_DEPTH) {
    problems.push({ path, message: `is nested deeper than ${MAX_DEPTH} levels` });
    return null;
  }
  if (node === null || node === undefined) return null;
  if (isAlias(node)) {
    problems.push({ path, message: 'YAML aliases (*name) are not supported' });
    return null;
  }
  if (isScalar(node)) return scalarValue(node.value);
  if (isSeq(node)) return node.items.map((item, i) => toTree(item, childPath(path, i), depth + 1, problems));
  if (isMap(node)) {
    const entries = new Map<string, YamlValue>();
    for (const pair of node.items) {
      if (!isScalar(pair.key)) {
        problems.push({ path, message: 'mapping keys must be plain scalars' });
        continue;
      }
      // a YAML 1.2 key "0" or 0 names the same netplan id
      const key = String(pair.key.value);
      entries.set(key, toTree(pair.value, childPath(path, key), depth + 1, problems));
    }
    return entries;
  }
  problems.push({ path, message: 'holds a YAML node of an unknown kind' });
  return null;
}

function scalarValue(value: unknown): YamlScalar {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || value === null) {
    return value;
  }
  return String(value); // e.g. a bigint: refused wherever a number is expected
}
