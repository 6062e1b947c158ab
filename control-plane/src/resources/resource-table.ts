import type { Condition } from './resource-query.js';

export type Doc = Record<string, unknown>;

/** `T`: the document type of the resource kind whose table holds the row (see ResourceHandle). */
export interface StoredRow<T extends Doc = Doc> {
  id: number;
  doc: T;
}

/**
 * One condition of a table query: an engine condition (resource-query.ts), where a parent with `-` segments is a
 * `parentMatch`, whose `namePrefix` (the names' literal start, from the kind's name patterns) the engine finds.
 */
export type TableCondition =
  | Exclude<Condition, { kind: 'not' | 'anyOf' }>
  | { kind: 'parentMatch'; parent: string; namePrefix: string }
  | { kind: 'not'; condition: TableCondition }
  | { kind: 'anyOf'; conditions: readonly TableCondition[] };

/**
 * One ordering key of a table query: the row's name, its parent's name or its id (the order rows were stored in),
 * or the scalar at a filter path; `present` orders by whether the path holds a value (1) or not (0) instead.
 */
export type SortKey =
  { key: 'name' | 'parent' | 'id'; desc: boolean } | { path: string; present?: boolean; desc: boolean };

/** What a table reads, in terms of the engine's conditions and paths: each store compiles it to its own SQL. */
export interface TableQuery {
  where: readonly TableCondition[];
  keys: readonly SortKey[];
  /** rows strictly after (or before) these key values in key order; with `inclusive`, also the row at them */
  seek?: { values: unknown[]; before: boolean; inclusive?: boolean };
  /** read the keys in reverse order (for a previous page) */
  reverse?: boolean;
  limit?: number;
}

export interface QueriedRow<T extends Doc = Doc> {
  id: number;
  doc: T;
  /** the document as stored (JSON) */
  text: string;
  keyValues: unknown[];
}

/** Told of every row written through a table, once the write succeeded. */
export interface RowObserver {
  /** `version`: the table's version after this write; `doc` is null when the row was removed. */
  written(version: number, id: number, name: string, doc: Doc | null): void;
}

/**
 * The stored rows of one resource kind, as the engine's storage keeps them (storage/sqlite, storage/postgres):
 * the JSON document, an indexed column for every scalar filterable path, and a side table of values for labels
 * and string lists. Queries take the engine's conditions and sort keys (TableQuery); the store compiles them.
 */
export interface ResourceTable {
  /** the table's SQL name */
  readonly table: string;
  /** the filterable paths whose columns this opening added to an existing table (filled from the documents) */
  readonly addedPaths: readonly string[];
  /**
   * Grows with every write: a caller holding rows it read earlier in the transaction may write over them
   * without reading them again only while this has not moved (the engine also moves it when a rollback undid
   * writes to this table).
   */
  readonly version: number;
  /** The rows read before a rollback may no longer be what is stored. */
  invalidate(): void;
  /** Tells `observer` of every write from now on (see RowProjection), until `unobserve`. */
  observe(observer: RowObserver): void;
  unobserve(observer: RowObserver): void;
  find(name: string): StoredRow | undefined;
  /** The stored rows of many names (absent ones are left out). */
  findMany(names: Iterable<string>): Map<string, StoredRow>;
  exists(name: string): boolean;
  /** Stores a new row; its id. `text`: `doc` as JSON, when the caller has it. */
  insert(name: string, parent: string, doc: Doc, text?: string): number;
  /**
   * Writes `doc` (serialised as `text`) over row `id`. With `before`, the document stored there now, only the
   * columns and side-table values that may differ are written; without it, all of them. `touched`: the only
   * top-level members that may differ from `before`, when the caller knows.
   */
  update(id: number, doc: Doc, text?: string, before?: Doc, touched?: ReadonlySet<string>): void;
  /** Removes row `id`, stored under `name`. */
  remove(id: number, name: string): void;
  query(q: TableQuery): QueriedRow[];
  /** The rows of each query, read together: on PostgreSQL in one round trip. */
  queryAll(qs: readonly TableQuery[]): QueriedRow[][];
  /**
   * `query`, to be taken later: on PostgreSQL, inside a transaction, the statement is queued to go out with the
   * next round trip, and the rows are as of this call; elsewhere it runs when taken. Take it before this table
   * is written again, or check that its version has not moved meanwhile (then either way gives the same rows).
   */
  queryLater(q: TableQuery): () => QueriedRow[];
  /** `find`, to be taken later (as `queryLater`). */
  findLater(name: string): () => StoredRow | undefined;
  /**
   * `query` one row at a time: each document is parsed just before `visit` sees it, so what `visit` does not
   * keep is soon garbage (for reading many rows into something smaller).
   */
  each(q: TableQuery, visit: (row: QueriedRow) => void): void;
  /** `each` without parsing the documents (to hold rows for a later write). */
  eachStored(q: TableQuery, visit: (row: Omit<QueriedRow, 'doc'>) => void): void;
  count(
    where: readonly TableCondition[],
    seek?: { keys: readonly SortKey[]; values: unknown[]; before: boolean },
  ): number;
  /** `count(where)`, counted again only after a write to this table (see MatchTotals). */
  total(where: readonly TableCondition[]): number;
}
