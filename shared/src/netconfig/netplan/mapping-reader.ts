import type { ProblemList } from '../config-problem.js';
import { childPath, quoted } from '../config-problem.js';
import type { YamlMapping, YamlValue } from './yaml-tree.js';

export const isMapping = (value: YamlValue | undefined): value is YamlMapping => value instanceof Map;

/**
 * Reads the keys of one YAML mapping, each as the type it must have, reporting what is wrong under the mapping's
 * path; `finish` reports the keys nothing read (netplan refuses unknown keys too).
 */
export class MappingReader {
  private readonly read = new Set<string>();

  constructor(
    readonly path: string,
    private readonly mapping: YamlMapping,
    readonly problems: ProblemList,
  ) {}

  /** A reader of `value` at `path`, or undefined (reported) when it is no mapping. */
  static of(value: YamlValue, path: string, problems: ProblemList): MappingReader | undefined {
    if (isMapping(value)) return new MappingReader(path, value, problems);
    problems.add(path, 'must be a mapping');
    return undefined;
  }

  keys(): string[] {
    return [...this.mapping.keys()];
  }

  pathOf(key: string): string {
    return childPath(this.path, key);
  }

  raw(key: string): YamlValue | undefined {
    this.read.add(key);
    return this.mapping.get(key);
  }

  /** A string (a YAML number or boolean is refused: the agent reads the YAML the same way). */
  scalar(key: string): string | undefined {
    const value = this.raw(key);
    if (value === undefined) return undefined;
    if (typeof value !== 'string') {
      this.problems.add(this.pathOf(key), `${shown(value)} is not a string`);
      return undefined;
    }
    return value;
  }

  /** A YAML boolean: true or false ("yes" is a string in YAML 1.2). */
  boolean(key: string): boolean | undefined {
    const value = this.raw(key);
    if (value === undefined || typeof value === 'boolean') return value;
    this.problems.add(this.pathOf(key), `${shown(value)} is not a boolean (true or false)`);
    return undefined;
  }

  integer(key: string, min: number, max: number): number | undefined {
    const value = this.raw(key);
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      this.problems.add(this.pathOf(key), `${shown(value)} is not a whole number from ${min} to ${max}`);
      return undefined;
    }
    return value;
  }

  /** A value that must pass `check` (which returns the problem, or undefined when fine). */
  checked(key: string, check: (text: string) => string | undefined): string | undefined {
    const text = this.scalar(key);
    if (text === undefined) return undefined;
    const problem = check(text);
    if (problem === undefined) return text;
    this.problems.add(this.pathOf(key), problem);
    return undefined;
  }

  oneOf<T extends string>(key: string, allowed: readonly T[]): T | undefined {
    return this.checked(key, (text) =>
      allowed.includes(text as T) ? undefined : `${quoted(text)} is not one of ${allowed.join(', ')}`,
    ) as T | undefined;
  }

  /** A list of values each passing `check`; the problem names the item's index. */
  list(key: string, check: (text: string) => string | undefined): string[] {
    const value = this.raw(key);
    if (value === undefined) return [];
    if (!Array.isArray(value)) {
      this.problems.add(this.pathOf(key), 'must be a list');
      return [];
    }
    const kept: string[] = [];
    value.forEach((item, i) => {
      const path = childPath(this.pathOf(key), i);
      if (typeof item !== 'string') return this.problems.add(path, `${shown(item)} is not a string`);
      const problem = check(item);
      if (problem === undefined) kept.push(item);
      else this.problems.add(path, problem);
    });
    return kept;
  }

  /** A nested mapping's reader (undefined when absent or not a mapping, the latter reported). */
  child(key: string): MappingReader | undefined {
    const value = this.raw(key);
    return value === undefined ? undefined : MappingReader.of(value, this.pathOf(key), this.problems);
  }

  /** Reports every key not read, naming those Outpost supports here. */
  finish(): void {
    const unknown = this.keys().filter((key) => !this.read.has(key));
    for (const key of unknown) {
      this.problems.add(this.pathOf(key), `is not a key Outpost supports here (known: ${[...this.read].join(', ')})`);
    }
  }
}

/** A YAML value for a message: scalars quoted or as written, collections by kind. */
function shown(value: YamlValue): string {
  if (value instanceof Map) return 'a mapping';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'string' ? quoted(value) : String(value);
}
