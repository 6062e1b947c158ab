import type { Doc, ResourceTable, RowObserver } from './resource-table.js';

/**
 * The distinct values that the stored documents of one table hold (e.g. every region any project lists), each
 * with how many documents hold it, kept up to date by the table's own writes: reading them costs no SQL and
 * grows with the number of values, not of documents. Like RowProjection, a write it did not see (a rollback)
 * makes the next read count the table again. `valuesOf` must be pure.
 */
export class ValueCounts implements RowObserver {
  private rows: Map<string, readonly string[]> | undefined;
  private readonly counts = new Map<string, number>();
  /** the table version that `rows` and `counts` reflect */
  private seen = -1;

  constructor(
    private readonly table: ResourceTable,
    private readonly valuesOf: (doc: Doc) => readonly string[],
  ) {
    table.observe(this);
  }

  written(version: number, _id: number, name: string, doc: Doc | null): void {
    if (this.rows === undefined) return;
    if (version !== this.seen + 1) {
      this.rows = undefined; // a write went by unseen: what is held may be stale
      return;
    }
    this.seen = version;
    this.forget(this.rows.get(name) ?? []);
    if (doc === null) this.rows.delete(name);
    else this.add(this.rows, name, doc);
  }

  /** Every value some stored document holds, sorted. */
  values(): string[] {
    this.build();
    return [...this.counts.keys()].sort();
  }

  /** Stops following the table. */
  close(): void {
    this.table.unobserve(this);
    this.rows = undefined;
  }

  private build(): void {
    if (this.rows !== undefined && this.seen === this.table.version) return;
    const rows = new Map<string, readonly string[]>();
    this.counts.clear();
    this.table.each({ where: [], keys: [{ key: 'name', desc: false }] }, (row) =>
      this.add(rows, String(row.doc['name']), row.doc),
    );
    this.rows = rows;
    this.seen = this.table.version;
  }

  private add(rows: Map<string, readonly string[]>, name: string, doc: Doc): void {
    const values = [...new Set(this.valuesOf(doc))];
    rows.set(name, values);
    for (const value of values) this.counts.set(value, (this.counts.get(value) ?? 0) + 1);
  }

  private forget(values: readonly string[]): void {
    for (const value of values) {
      const left = (this.counts.get(value) ?? 0) - 1;
      if (left > 0) this.counts.set(value, left);
      else this.counts.delete(value);
    }
  }
}
