import { parseDocument } from '../resources/doc-utils.js';
import type { ResourceHandle } from '../resources/resource-handle.js';
import type { Doc, StoredRow } from '../resources/resource-table.js';
import type { RowProjection } from '../resources/row-projection.js';

/** Rows read and written together when they are not held. */
const ROWS_PER_WRITE = 500;

/** A held row: its parsed document, or only its stored text when nobody parsed it yet. */
type HeldRow<T extends Doc> = { id: number; doc: T } | { id: number; text: string };

/**
 * Rows of one kind read earlier in the transaction, to write over without reading them again. They are used
 * only while nothing of that kind was written since they were read (the table's version has not moved);
 * otherwise, and for names not held, the rows come from `memory` (every stored row, kept in memory) while it
 * is current, and are read again, a chunk at a time, when it is not (see merge).
 */
export class HeldRows<T extends Doc> {
  private readonly version: number;
  private readonly rows = new Map<string, HeldRow<T>>();

  /** Make it before reading the rows it is to hold. */
  constructor(
    private readonly handle: ResourceHandle<T>,
    private readonly memory?: RowProjection<StoredRow<T>>,
  ) {
    this.version = handle.version;
  }

  /** Holds a row: its document when the caller parsed it anyway, else its stored text (parsed when written). */
  hold(name: string, row: { id: number; text: string; doc?: T }): void {
    // a parsed document's text is not kept: many large strings held through a long recompute cost the GC
    this.rows.set(name, row.doc ? { id: row.id, doc: row.doc } : { id: row.id, text: row.text });
  }

  /**
   * Sets top-level members as the system (as ResourceHandle.mergeRows); names not stored are skipped. Rows not
   * held are read a few hundred at a time, just before they are written, so their documents are soon garbage.
   */
  merge(entries: Iterable<readonly [string, Partial<T>]>): void {
    const byName = new Map<string, Partial<T>>();
    for (const [name, fields] of entries) {
      const earlier = byName.get(name);
      byName.set(name, earlier ? { ...earlier, ...fields } : fields);
    }
    if (byName.size === 0) return;
    // each chunk writes only its own rows: what is held for the others stays what is stored
    const fresh = this.handle.version === this.version;
    const names = [...byName.keys()].sort();
    for (let i = 0; i < names.length; i += ROWS_PER_WRITE) {
      const chunk = names.slice(i, i + ROWS_PER_WRITE);
      const known = new Map<string, StoredRow>();
      for (const name of chunk) {
        const heldRow = fresh ? this.rows.get(name) : undefined;
        const row = heldRow
          ? { id: heldRow.id, doc: 'doc' in heldRow ? heldRow.doc : parseDocument(heldRow.text) }
          : this.memory?.held(name);
        if (row) known.set(name, row);
      }
      const missing = chunk.filter((name) => !known.has(name));
      const read = missing.length > 0 ? this.handle.findRows(missing) : new Map<string, StoredRow>();
      const rows: [StoredRow, Doc][] = [];
      for (const name of chunk) {
        const row = known.get(name) ?? read.get(name);
        if (row) rows.push([row, byName.get(name) ?? {}]);
      }
      this.handle.mergeRows(rows);
    }
    if (fresh) this.rows.clear(); // written: what is held is no longer what is stored
  }
}
