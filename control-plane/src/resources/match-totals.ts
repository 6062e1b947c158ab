/** What a total is counted from: the table, through its write counter (see ResourceTable.version). */
interface CountedTable {
  readonly version: number;
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

  /** `key`: the same for conditions that select the same rows (the store's statement); `count` counts them. */
  of(key: string, count: () => number): number {
    if (this.counted !== this.table.version) {
      this.totals.clear();
      this.counted = this.table.version;
    }
    let total = this.totals.get(key);
    if (total === undefined) {
      total = count();
      if (this.totals.size >= KEPT_TOTALS) this.totals.clear();
      this.totals.set(key, total);
    }
    return total;
  }
}
