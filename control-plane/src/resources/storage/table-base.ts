import { parseDocument } from '../doc-utils.js';
import { MatchTotals } from '../match-totals.js';
import type {
  Doc,
  QueriedRow,
  RowObserver,
  SortKey,
  StoredRow,
  TableCondition,
  TableQuery,
} from '../resource-table.js';
import { compileWhere } from './sql/compile-query.js';
import type { QueryTarget } from './sql/compile-query.js';

/**
 * What every store's table shares: its write counter (`version`), the observers told of each write, reading
 * rows as documents on top of the store's own `eachStored`, and list totals kept per version.
 */
export abstract class TableBase {
  private readonly observers: RowObserver[] = [];
  private writes = 0;
  private totals: MatchTotals | undefined;
  /** How the store compiles this table's queries. */
  protected abstract readonly target: QueryTarget;

  get version(): number {
    return this.writes;
  }

  invalidate(): void {
    this.writes++;
  }

  observe(observer: RowObserver): void {
    this.observers.push(observer);
  }

  unobserve(observer: RowObserver): void {
    const at = this.observers.indexOf(observer);
    if (at >= 0) this.observers.splice(at, 1);
  }

  /** `each` without parsing the documents (to hold rows for a later write). */
  abstract eachStored(q: TableQuery, visit: (row: Omit<QueriedRow, 'doc'>) => void): void;

  abstract count(
    where: readonly TableCondition[],
    seek?: { keys: readonly SortKey[]; values: unknown[]; before: boolean },
  ): number;

  total(where: readonly TableCondition[]): number {
    this.totals ??= new MatchTotals(this);
    // kept by statement: conditions written differently that compile alike (an empty filter) share a total
    const key = JSON.stringify(compileWhere(this.target, where).map((w) => [w.sql, w.params]));
    return this.totals.of(key, () => this.count(where));
  }

  query(q: TableQuery): QueriedRow[] {
    const rows: QueriedRow[] = [];
    this.each(q, (row) => rows.push(row));
    return rows;
  }

  queryAll(qs: readonly TableQuery[]): QueriedRow[][] {
    return qs.map((q) => this.query(q));
  }

  queryLater(q: TableQuery): () => QueriedRow[] {
    return () => this.query(q);
  }

  findLater(name: string): () => StoredRow | undefined {
    return () => this.find(name);
  }

  abstract find(name: string): StoredRow | undefined;

  /**
   * `query` one row at a time: each document is parsed just before `visit` sees it, so what `visit` does not
   * keep is soon garbage (for reading many rows into something smaller).
   */
  each(q: TableQuery, visit: (row: QueriedRow) => void): void {
    this.eachStored(q, (row) => visit(this.withDocument(row)));
  }

  /** A stored row with its document parsed. */
  protected withDocument(row: Omit<QueriedRow, 'doc'>): QueriedRow {
    return { id: row.id, doc: parseDocument(row.text), text: row.text, keyValues: row.keyValues };
  }

  /** Counts a write before it is made (so a failed one still moves `version`). */
  protected writing(): void {
    this.writes++;
  }

  protected told(id: number, name: string, doc: Doc | null): void {
    for (const observer of this.observers) observer.written(this.writes, id, name, doc);
  }
}
