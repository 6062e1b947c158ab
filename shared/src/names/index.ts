export { ID_RULES, WILDCARD, describeRule, isValidId } from './id-rules.js';
export type { IdRule } from './id-rules.js';
export { NamePattern, isWildcardParent } from './name-pattern.js';
export { generateId } from './generate-id.js';
