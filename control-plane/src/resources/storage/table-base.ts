import type { Doc, RowObserver } from '../resource-table.js';

/** What every store's table shares: its write counter (`version`) and the observers told of each write. */
export abstract class TableBase {
  private readonly observers: RowObserver[] = [];
  private writes = 0;

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

  /** Counts a write before it is made (so a failed one still moves `version`). */
  protected writing(): void {
    this.writes++;
  }

  protected told(id: number, name: string, doc: Doc | null): void {
    for (const observer of this.observers) observer.written(this.writes, id, name, doc);
  }
}
