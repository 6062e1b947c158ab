import { describe, expect, it } from 'vitest';
import { valueDrivenRead } from '../../../src/resources/storage/value-driven.js';

/**
 * SQLite bounds an index range by one condition on each side: a page deep in a label's list under a parent must
 * start at its position, not at the parent's first name (testing the position on every name before it).
 */
const tables = { table: 't', multiTable: 'v', containsSql: 'CONTAINS', same: 'IS' };
const where = [
  { sql: 'parent = ?', params: ['projects/p1'] },
  { sql: 'CONTAINS', params: ['metadata.labels', 'zone:a'] },
];
const bounds = (read: ReturnType<typeof valueDrivenRead>): string[] =>
  (read?.conditions ?? []).filter((c) => c.includes('row_name'));

describe('a list by one label under a parent', () => {
  it("bounds the names once a side: by the parent's, or by the page's position inside them", () => {
    const name = 'projects/p1/widgets/w5';
    const first = valueDrivenRead(tables, where, [{ sql: 'name', desc: false }], undefined);
    expect(bounds(first)).toEqual(['driving.row_name > ?', 'driving.row_name < ?']);
    expect(first?.params).toEqual(['metadata.labels', 'zone:a', 'projects/p1/', 'projects/p10']);

    const next = valueDrivenRead(tables, where, [{ sql: 'name', desc: false }], { values: [name], before: false });
    expect(bounds(next)).toEqual(['driving.row_name < ?', '((driving.row_name > ?))']);
    expect(next?.params).toEqual(['metadata.labels', 'zone:a', 'projects/p10', name]);

    const back = valueDrivenRead(tables, where, [{ sql: 'name', desc: false }], { values: [name], before: true });
    expect(bounds(back)).toEqual(['driving.row_name > ?', '((driving.row_name < ?))']);
    const descending = valueDrivenRead(tables, where, [{ sql: 'name', desc: true }], { values: [name], before: false });
    expect(bounds(descending)).toEqual(['driving.row_name > ?', '((driving.row_name < ?))']);
  });

  it("keeps the parent's bounds for a position outside its names", () => {
    const outside = valueDrivenRead(tables, where, [{ sql: 'name', desc: false }], {
      values: ['projects/p2/widgets/w1'],
      before: false,
    });
    expect(bounds(outside)).toEqual(['driving.row_name > ?', 'driving.row_name < ?', '((driving.row_name > ?))']);
  });
});
