import { stringify as toYaml } from 'yaml';

export const OUTPUT_FORMATS = ['table', 'json', 'yaml'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** A table column: a dotted path into each row, with an explicit header or one derived from the path. */
export type Column = string | { header: string; path: string };

const COLUMN_GAP = '   ';

/** Pretty JSON, YAML, or for tables: rows (an array) as aligned columns, one object as aligned field/value lines. */
export function formatOutput(value: unknown, format: OutputFormat, columns?: readonly Column[]): string {
  switch (format) {
    case 'json':
      return `${JSON.stringify(value, null, 2)}\n`;
    case 'yaml':
      return toYaml(value);
    case 'table':
      if (Array.isArray(value)) return formatTable(value, columns ?? deriveColumns(value));
      if (isRecord(value) && columns === undefined) return formatFields(value);
      return formatTable([value], columns ?? ['value']);
  }
}

/** Aligned columns under upper-case headers; empty cells stay blank and no line ends in spaces. */
export function formatTable(rows: readonly unknown[], columns: readonly Column[]): string {
  const specs = columns.map((c) => (typeof c === 'string' ? { header: headerOf(c), path: c } : c));
  const cells = [specs.map((s) => s.header), ...rows.map((row) => specs.map((s) => cellText(valueAt(row, s.path))))];
  return alignRows(cells);
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

/** One line per leaf: `path   value`, aligned. */
export function formatFields(value: Record<string, unknown>): string {
  const lines: string[][] = [];
  const walk = (v: unknown, path: string): void => {
    if (isRecord(v) && Object.keys(v).length > 0) {
      for (const [key, inner] of Object.entries(v)) walk(inner, path === '' ? key : `${path}.${key}`);
    } else if (Array.isArray(v) && v.length > 0 && !v.every(isScalar)) {
      v.forEach((inner: unknown, i) => walk(inner, `${path}[${i}]`));
    } else {
      lines.push([path, cellText(v)]);
    }
  };
  walk(value, '');
  return alignRows(lines.map(([path = '', text = '']) => [`${path}:`, text]));
}

export function cellText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value.replace(/\r?\n/g, '\\n');
  if (isScalar(value)) return String(value);
  if (Array.isArray(value) && value.every(isScalar)) return value.map(cellText).join(',');
  return JSON.stringify(value);
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

function valueAt(row: unknown, path: string): unknown {
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
