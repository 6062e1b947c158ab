import type { SqlFragment } from '@outpost/shared';

/** What a total is counted from: the table's rows, and its write counter (see ResourceTable.version). */
interface CountedTable {
  readonly version: number;
  count(where: SqlFragment[]): number;
}

/** Distinct conditions whose totals are kept at a time (a walk through pages asks for the same few). */
const KEPT_TOTALS = 64;

/**
 * How many rows match a list's conditions, counted once per table version: every page of a walk with paging
 * info asks for the same total, and counting reads every match (on PostgreSQL each match's heap page too,
 * while the visibility map does not cover it). Any write of the kind moves the version (so does a rollback that
 * undid one, and on a shared PostgreSQL store another replica's change once this one follows it), and the next
 * total is counted again.
 */
export class MatchTotals {
  private readonly totals = new Map<string, number>();
  /** the table version the totals were counted at */
  private counted = -1;

  constructor(private readonly table: CountedTable) {}

  of(where: readonly SqlFragment[]): number {
    if (this.counted !== this.table.version) {
      this.totals.clear();
      this.counted = this.table.version;
    }
    const key = JSON.stringify(where.map((w) => [w.sql, w.params]));
    let total = this.totals.get(key);
    if (total === undefined) {
      total = this.table.count([...where]);
      if (this.totals.size >= KEPT_TOTALS) this.totals.clear();
      this.totals.set(key, total);
    }
    return total;
  }
}
