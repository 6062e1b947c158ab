import { invalidArgument } from '../errors/api-error.js';
import { idProblem, isValidId, segmentsOf, WILDCARD } from './id-rules.js';
import type { IdRule } from './id-rules.js';
import { problemOf } from './name-problem.js';
import type { NameProblem } from './name-problem.js';
import { parsePart, partText } from './template-part.js';
import type { TemplatePart } from './template-part.js';

type Ids = Record<string, string>;

/**
 * One name shape of a resource, e.g. 'projects/{project}/regions/{region}/devices/{device}'.
 * Names are '/'-separated; each {variable} is one id (an id may span several segments, see IdRule).
 * In a parent, a variable may be '-', which matches every value.
 */
export class NamePattern {
  readonly template: string;
  readonly collection: string;
  readonly idVariable: string;
  readonly parentTemplate: string;
  private readonly parts: readonly TemplatePart[];
  private readonly parentParts: readonly TemplatePart[];
  private readonly idRule: IdRule;

  constructor(template: string, rules: Record<string, IdRule>) {
    this.template = template;
    this.parts = template.split('/').map((segment) => parsePart(segment, rules, template));
    const last = this.parts.at(-1);
    const beforeLast = this.parts.at(-2);
    if (last?.kind !== 'variable' || beforeLast?.kind !== 'literal') {
      throw new Error(`name template "${template}" must end with <collection>/{<id>}`);
    }
    const names = this.parts.flatMap((p) => (p.kind === 'variable' ? [p.name] : []));
    if (new Set(names).size !== names.length) throw new Error(`name template "${template}" repeats a variable`);
    this.collection = beforeLast.text;
    this.idVariable = last.name;
    this.idRule = last.rule;
    this.parentParts = this.parts.slice(0, -2);
    this.parentTemplate = this.parentParts.map(partText).join('/');
  }

  /** A full name's ids, or null when it does not have this shape (wildcards are not allowed). */
  parse(name: string): Ids | null {
    return matchParts(this.parts, name.split('/'), false);
  }

  /** Why `name` is not a name of this shape (null when it is); wildcards are not ids here. */
  problemWithName(name: string): NameProblem | null {
    return problemOf(this.parts, name.split('/'), false, this.template);
  }

  /** Why `parent` is not a parent of this shape (null when it is); any id may be '-'. */
  problemWithParent(parent: string): NameProblem | null {
    if (this.parentParts.length === 0) {
      return parent === '' ? null : { shapeFits: false, message: 'must be empty: this collection has no parent' };
    }
    return problemOf(this.parentParts, parent.split('/'), true, this.parentTemplate);
  }

  /** The name of these ids; throws INVALID_ARGUMENT naming the first missing or malformed id. */
  format(ids: Record<string, string>): string {
    return this.parts
      .map((part) => {
        if (part.kind === 'literal') return part.text;
        const id = ids[part.name];
        if (id === undefined || id === '') throw invalidArgument(`missing ${part.name} id`);
        assertValidId(part.name, part.rule, id);
        return id;
      })
      .join('/');
  }

  parentOf(name: string): string | null {
    if (this.parse(name) === null) return null;
    return name
      .split('/')
      .slice(0, -(1 + segmentsOf(this.idRule)))
      .join('/');
  }

  idOf(name: string): string | null {
    return this.parse(name)?.[this.idVariable] ?? null;
  }

  /** A parent's ids, where any id may be '-'; null when it does not have the parent shape. */
  parseParent(parent: string): Ids | null {
    if (this.parentParts.length === 0) return parent === '' ? {} : null;
    return matchParts(this.parentParts, parent.split('/'), true);
  }

  /** The name of the child `id` of a concrete (wildcard-free) parent; throws INVALID_ARGUMENT when either is malformed. */
  nameInParent(parent: string, id: string): string {
    const ids = this.parseParent(parent);
    if (ids === null) throw this.invalidParent(parent);
    if (Object.values(ids).includes(WILDCARD)) throw invalidArgument(`parent "${parent}" must not contain wildcards`);
    assertValidId(this.idVariable, this.idRule, id);
    return [...(parent === '' ? [] : [parent]), this.collection, id].join('/');
  }

  private invalidParent(parent: string) {
    const problem = this.problemWithParent(parent)?.message ?? `must look like ${this.parentTemplate}`;
    return invalidArgument(`invalid parent "${parent}": ${problem}`);
  }

  /** Whether `name` is a child of `parent`, where a '-' id in the parent matches every value. */
  matchesParent(parent: string, name: string): boolean {
    const wanted = this.parseParent(parent);
    const ids = this.parse(name);
    if (wanted === null || ids === null) return false;
    return Object.entries(wanted).every(([variable, id]) => id === WILDCARD || ids[variable] === id);
  }

  /**
   * The longest literal prefix shared by every child name of `parent` ('projects/p/regions/' for
   * 'projects/p/regions/-'): a range scan over it still needs matchesParent to drop other collections.
   */
  literalPrefix(parent: string): string {
    const ids = this.parseParent(parent);
    if (ids === null) throw this.invalidParent(parent);
    const prefix: string[] = [];
    for (const part of this.parentParts) {
      if (part.kind === 'literal') {
        prefix.push(part.text);
        continue;
      }
      const id = ids[part.name] ?? WILDCARD;
      if (id === WILDCARD) return prefix.map((s) => `${s}/`).join('');
      prefix.push(id);
    }
    return [...prefix, this.collection].map((s) => `${s}/`).join('');
  }
}

export function isWildcardParent(parent: string): boolean {
  return parent.split('/').includes(WILDCARD);
}

function assertValidId(variable: string, rule: IdRule, id: string): void {
  const problem = idProblem(variable, rule, id);
  if (problem !== null) throw invalidArgument(problem);
}

/** Matches name segments against template parts; ids spanning several segments make this a small backtracking search. */
function matchParts(parts: readonly TemplatePart[], segments: readonly string[], allowWildcard: boolean): Ids | null {
  const ids: Ids = {};
  const matchFrom = (partIndex: number, segmentIndex: number): boolean => {
    const part = parts[partIndex];
    if (part === undefined) return segmentIndex === segments.length;
    if (part.kind === 'literal') {
      return segments[segmentIndex] === part.text && matchFrom(partIndex + 1, segmentIndex + 1);
    }
    if (allowWildcard && segments[segmentIndex] === WILDCARD) {
      ids[part.name] = WILDCARD;
      if (matchFrom(partIndex + 1, segmentIndex + 1)) return true;
    }
    const end = segmentIndex + segmentsOf(part.rule);
    if (end <= segments.length) {
      const id = segments.slice(segmentIndex, end).join('/');
      if (isValidId(part.rule, id)) {
        ids[part.name] = id;
        if (matchFrom(partIndex + 1, end)) return true;
      }
    }
    delete ids[part.name];
    return false;
  };
  return matchFrom(0, 0) ? ids : null;
}
