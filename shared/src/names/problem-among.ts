import type { NamePattern } from './name-pattern.js';
import type { NameProblem } from './name-problem.js';

/**
 * Why `name` is a name of none of `patterns` (null when it fits one): the wrong id of the pattern whose
 * shape it has, or else every shape it could have had.
 */
export function nameProblemAmong(patterns: readonly NamePattern[], name: string): NameProblem | null {
  return among(
    patterns.map((pattern) => pattern.problemWithName(name)),
    patterns.map((pattern) => pattern.template),
  );
}

/** Why `parent` is a parent of none of `patterns` (null when it fits one), as nameProblemAmong. */
export function parentProblemAmong(patterns: readonly NamePattern[], parent: string): NameProblem | null {
  return among(
    patterns.map((pattern) => pattern.problemWithParent(parent)),
    patterns.map((pattern) => pattern.parentTemplate || '(no parent)'),
  );
}

function among(problems: readonly (NameProblem | null)[], shapes: readonly string[]): NameProblem | null {
  if (problems.some((problem) => problem === null)) return null;
  const meant = problems.find((problem) => problem?.shapeFits === true);
  return meant ?? { shapeFits: false, message: `must look like ${[...new Set(shapes)].join(' or ')}` };
}
