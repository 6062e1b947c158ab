/** Positional '?' parameters, better-sqlite3 style (PostgreSQL's statements number them on the way out). */
export interface SqlFragment {
  sql: string;
  params: unknown[];
}

/** One ordering key of a statement: a SQL expression and its direction. */
export interface SqlKey {
  sql: string;
  desc: boolean;
}
