export { ID_RULES, WILDCARD, describeRule, idProblem, isValidId } from './id-rules.js';
export type { IdRule, IdSegment } from './id-rules.js';
export { NamePattern, isWildcardParent } from './name-pattern.js';
export type { NameProblem } from './name-problem.js';
export { nameProblemAmong, parentProblemAmong } from './problem-among.js';
export { generateId } from './generate-id.js';
