import { stringify as toYaml } from 'yaml';

export const OUTPUT_FORMATS = ['table', 'json', 'yaml'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** A table column: a dotted path into each row, with an explicit header or one derived from the path. */
export type Column = string | { header: string; path: string };

/**
 * Words tables show instead of raw values, by field path, e.g. spec 000's Online for the API's CONNECTED in
 * `status.connectionStatus`. json and yaml always print the values as the API sends them.
 */
export type DisplayWords = Readonly<Record<string, Readonly<Record<string, string>>>>;

const COLUMN_GAP = '   ';

/** Pretty JSON, YAML, or for tables: rows (an array) as aligned columns, one object as aligned field/value lines. */
export function formatOutput(
  value: unknown,
  format: OutputFormat,
  columns?: readonly Column[],
  words: DisplayWords = {},
): string {
  switch (format) {
    case 'json':
      return `${JSON.stringify(value, null, 2)}\n`;
    case 'yaml':
      return toYaml(value);
    case 'table':
      if (Array.isArray(value)) return formatTable(value, columns ?? deriveColumns(value), words);
      if (isRecord(value) && columns === undefined) return formatFields(value, words);
      return formatTable([value], columns ?? ['value'], words);
  }
}

/**
 * Aligned columns under upper-case headers; empty cells stay blank and no line ends in spaces. A column no row
 * has a value for (say, every column but the name under `--view NAME`) is left out; with no rows, every header
 * shows.
 */
export function formatTable(rows: readonly unknown[], columns: readonly Column[], words: DisplayWords = {}): string {
  const specs = columns.map((c) => (typeof c === 'string' ? { header: headerOf(c), path: c } : c));
  const body = rows.map((row) => specs.map((s) => shownText(valueAt(row, s.path), s.path, words)));
  const filled = specs.map((_, i) => rows.length === 0 || body.some((cells) => cells[i] !== ''));
  const kept = <T>(cells: readonly T[]): T[] => cells.filter((_, i) => filled[i]);
  return alignRows([kept(specs.map((s) => s.header)), ...body.map(kept)]);
}

/** 'displayName' → 'DISPLAY_NAME', 'spec.osVersion' → 'SPEC.OS_VERSION' */
export const headerOf = (path: string): string =>
  path
    .split('.')
    .map((segment) => segment.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase())
    .join('.');

/** The top-level members holding scalars (or lists of scalars) in any row, in order of first appearance. */
export function deriveColumns(rows: readonly unknown[]): string[] {
  const found = new Set<string>();
  for (const row of rows) {
    if (!isRecord(row)) continue;
    for (const [key, v] of Object.entries(row))
      if (isScalar(v) || (Array.isArray(v) && v.every(isScalar))) found.add(key);
  }
  return found.size > 0 ? [...found] : ['name'];
}

/** One line per leaf: `path:   value`, aligned; `name` comes first wherever the resource holds it. */
export function formatFields(value: Record<string, unknown>, words: DisplayWords = {}): string {
  const lines: string[][] = [];
  const walk = (v: unknown, path: string): void => {
    if (isConfigurationPart(v)) {
      lines.push([path, cellText(configurationPartText(v))]);
    } else if (isRecord(v) && Object.keys(v).length > 0) {
      for (const [key, inner] of Object.entries(v)) walk(inner, path === '' ? key : `${path}.${key}`);
    } else if (Array.isArray(v) && v.length > 0 && !v.every(isScalar)) {
      v.forEach((inner: unknown, i) => walk(inner, `${path}[${i}]`));
    } else {
      lines.push([path, shownText(v, path, words)]);
    }
  };
  const { name, ...rest } = value;
  walk(name === undefined ? rest : { name, ...rest }, '');
  return alignRows(lines.map(([path = '', text = '']) => [`${path}:`, text]));
}

/** A value as one table cell, in the words the table shows for its path. */
export function shownText(value: unknown, path: string, words: DisplayWords): string {
  const shown = typeof value === 'string' && Object.hasOwn(words, path) ? words[path]?.[value] : undefined;
  return shown ?? cellText(value);
}

/** A value as one line of text: lists of scalars comma-separated, conditions as `type status/reason: message`. */
export function cellText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value.replace(/\r?\n/g, '\\n');
  if (isScalar(value)) return String(value);
  if (Array.isArray(value) && value.every(isScalar)) return value.map(cellText).join(',');
  if (Array.isArray(value) && value.length > 0 && value.every(isCondition)) return value.map(conditionText).join('; ');
  return JSON.stringify(value);
}

interface Condition {
  type: string;
  status: string;
  reason?: unknown;
  message?: unknown;
}

const isCondition = (v: unknown): v is Condition =>
  isRecord(v) && typeof v['type'] === 'string' && typeof v['status'] === 'string';

function conditionText(condition: Condition): string {
  const reason = typeof condition.reason === 'string' && condition.reason !== '' ? `/${condition.reason}` : '';
  const message = typeof condition.message === 'string' && condition.message !== '' ? `: ${condition.message}` : '';
  return cellText(`${condition.type} ${condition.status}${reason}${message}`);
}

/** One part of a device's `status.configuration` (network, ssh, ...), as the agent reports it. */
interface ConfigurationPart {
  desiredGeneration: number;
  appliedGeneration?: unknown;
  source: string;
  lastError?: unknown;
  updateTime: string;
}

const isConfigurationPart = (v: unknown): v is ConfigurationPart =>
  isRecord(v) &&
  typeof v['desiredGeneration'] === 'number' &&
  typeof v['source'] === 'string' &&
  typeof v['updateTime'] === 'string';

/** `known-good, applied 3 of 4: why (2026-01-01T00:00:00Z)`: what is in force, and why not the desired one. */
function configurationPartText(part: ConfigurationPart): string {
  const applied = typeof part.appliedGeneration === 'number' ? String(part.appliedGeneration) : 'none';
  const error = typeof part.lastError === 'string' && part.lastError !== '' ? `: ${part.lastError}` : '';
  return `${part.source}, applied ${applied} of ${part.desiredGeneration}${error} (${part.updateTime})`;
}

function alignRows(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows
    .map((row) =>
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
        .join(COLUMN_GAP)
        .trimEnd(),
    )
    .map((line) => `${line}\n`)
    .join('');
}

export function valueAt(row: unknown, path: string): unknown {
  let current: unknown = row;
  for (const segment of path.split('.')) {
    if (!isRecord(current)) return undefined;
    current = current[segment];
  }
  return current;
}

const isScalar = (v: unknown): v is string | number | boolean =>
  typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
