import type { Filter, FilterNode } from '../../src/query/index.js';
import { testSchema } from './test-schema.js';

/**
 * How the filter property tests run: a fixed seed (a failure reproduces; CI is not luck-dependent), which
 * FILTER_PROPERTY_SEED replaces for exploration, and `numRuns` unless FILTER_PROPERTY_RUNS says otherwise.
 * A failure prints the seed and path fast-check needs to replay it.
 */
export function propertyRuns(numRuns: number): { seed: number; numRuns: number } {
  return {
    seed: integerFromEnv('FILTER_PROPERTY_SEED') ?? 20_261_129,
    numRuns: integerFromEnv('FILTER_PROPERTY_RUNS') ?? numRuns,
  };
}

function integerFromEnv(name: string): number | undefined {
  const text = process.env[name];
  if (text === undefined || text === '') return undefined;
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new Error(`${name} must be an integer, not "${text}"`);
  return value;
}

/**
 * What the filters of a property run exercised, counted over its runs: `<field type> <condition>` for every
 * condition (`string(map key) compare` for one key of a labels map), `nested path` for a path three deep.
 */
export class FilterCoverage {
  readonly counts = new Map<string, number>();

  add(filter: Filter): void {
    if (filter.ast !== null) this.visit(filter.ast);
  }

  private visit(node: FilterNode): void {
    switch (node.kind) {
      case 'and':
      case 'or':
        for (const child of node.children) this.visit(child);
        return;
      case 'not':
        this.visit(node.child);
        return;
      case 'contains':
        this.count(`${node.field.type} contains ${node.mode}`);
        return;
      default: {
        const type = node.field.mapKey === undefined ? node.field.type : `${node.field.type}(map key)`;
        this.count(`${type} ${node.kind}`);
        if (node.field.path.split('.').length > 2) this.count('nested path');
      }
    }
  }

  private count(feature: string): void {
    this.counts.set(feature, (this.counts.get(feature) ?? 0) + 1);
  }

  /** The features of REQUIRED_COVERAGE no filter exercised. */
  missing(): string[] {
    return REQUIRED_COVERAGE.filter((feature) => !this.counts.has(feature));
  }

  toString(): string {
    return [...this.counts]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([feature, n]) => `${feature}: ${n}`)
      .join(', ');
  }
}

const SCALAR_TYPES = [...new Set(testSchema.fields.map((f) => f.type))].filter(
  (type) => type !== 'labels' && type !== 'stringList' && type !== 'object',
);

/** Every filter field type of testSchema, in each kind of condition it takes. */
export const REQUIRED_COVERAGE: readonly string[] = [
  ...SCALAR_TYPES.flatMap((type) => [`${type} compare`, `${type} in`, `${type} isNull`]),
  'string like',
  'name like',
  'enum like',
  'string(map key) compare',
  'string(map key) in',
  'string(map key) isNull',
  'string(map key) like',
  'labels contains any',
  'labels contains all',
  'labels isNull',
  'stringList contains any',
  'stringList contains all',
  'stringList isNull',
  'object isNull',
  'nested path',
];
