import type { Doc, ResourceTable, RowObserver } from './resource-table.js';

/**
 * A value derived from every stored document of one table, held in memory by name and kept up to date by the
 * table's own writes: reading all of it costs no SQL and no parsing once it is built. A write it did not see
 * (a rollback, a statement that failed) leaves the table's version ahead of it, and the next read builds it
 * again from the table. `derive` must be pure, and callers must not change what it returns.
 */
export class RowProjection<R> implements RowObserver {
  private rows: Map<string, R> | undefined;
  /** the table version that `rows` reflects */
  private seen = -1;

  constructor(
    private readonly table: ResourceTable,
    private readonly derive: (doc: Doc, id: number) => R,
  ) {
    table.observe(this);
  }

  written(version: number, id: number, name: string, doc: Doc | null): void {
    if (this.rows === undefined) return;
    if (version !== this.seen + 1) {
      this.rows = undefined; // a write went by unseen: what is held may be stale
      return;
    }
    this.seen = version;
    if (doc === null) this.rows.delete(name);
    else this.rows.set(name, this.derive(doc, id));
  }

  /** Reads the table now unless what is held is current (to pay for the read before it is needed). */
  build(): void {
    if (this.current()) return;
    const rows = new Map<string, R>();
    this.table.each({ where: [], keys: [{ key: 'name', desc: false }] }, (row) =>
      rows.set(String(row.doc['name']), this.derive(row.doc, row.id)),
    );
    this.rows = rows;
    this.seen = this.table.version;
  }

  /** Stops following the table (what is held is dropped). */
  close(): void {
    this.table.unobserve(this);
    this.rows = undefined;
  }

  /** The value of every stored row: in name order after a build, rows created since then after them. */
  values(): R[] {
    this.build();
    return [...(this.rows ?? new Map<string, R>()).values()];
  }

  /**
   * The value of row `name` when what is held is current, without building it; undefined when it is not
   * current or holds no such row (the caller reads the table then).
   */
  held(name: string): R | undefined {
    return this.current() ? this.rows?.get(name) : undefined;
  }

  private current(): boolean {
    return this.rows !== undefined && this.seen === this.table.version;
  }
}
