import { nameMatches } from '@outpost/shared';

/** The SQL function the stores register: outpost_name_match(value, pattern) → 1 or 0. */
export const NAME_MATCH_SQL_FUNCTION = 'outpost_name_match';

/** The implementation of NAME_MATCH_SQL_FUNCTION: argument order (value, pattern); non-text value → 0. */
export function nameMatchSql(value: unknown, pattern: unknown): number {
  return typeof value === 'string' && typeof pattern === 'string' && nameMatches(pattern, value) ? 1 : 0;
}

/** A SQL function filterToSql() output may call; register each with better-sqlite3 (`db.function(name, impl)`). */
export interface SqlFunction {
  name: string;
  /** takes SQL values, returns 1 or 0; its declared parameter count is the SQL argument count */
  implementation: (...args: unknown[]) => number;
}

/** outpost_name_match(value, pattern): the argument order filterToSql() emits, `outpost_name_match(col, ?)`. */
export const SQL_FUNCTIONS: readonly SqlFunction[] = Object.freeze([
  { name: NAME_MATCH_SQL_FUNCTION, implementation: nameMatchSql },
]);
