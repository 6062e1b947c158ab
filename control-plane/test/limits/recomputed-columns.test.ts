import { expect, it } from 'vitest';
import { limitDefinition, limitPoolDefinition, planAssignmentDefinition } from '@outpost/shared';
import { ResourceEngine } from '../../src/resources/resource-engine.js';
import { where } from '../../src/resources/resource-query.js';
import type { Storage } from '../../src/resources/storage/storage.js';
import { PgStorage } from '../../src/resources/storage/postgres/pg-storage.js';
import { SqliteStorage } from '../../src/resources/storage/sqlite/sqlite-storage.js';
import { describeStorages } from '../helpers/storages.js';

/**
 * A plan change rewrites the numbers of every dependent limit, pool and assignment (tens of thousands of
 * documents in one write): those columns have no index, so the write rewrites no index entry for them (and on
 * PostgreSQL, whose update is heap-only when no indexed column moves, none at all). Filters on them still answer.
 */
const UNINDEXED: Record<string, readonly string[]> = {
  r_limits: ['f_configuredlimit', 'f_activelimit', 'f_usage'],
  r_limitpools: ['f_configuredsize', 'f_activesize', 'f_reserved'],
  r_planassignments: ['f_appliedplanspecgeneration'],
};

describeStorages('limits: the columns a plan change moves', (fresh) => {
  it('have no index, and filters on them still answer', () => {
    const storage = fresh();
    const engine = new ResourceEngine(storage);
    const limits = engine.register(limitDefinition);
    engine.register(limitPoolDefinition);
    engine.register(planAssignmentDefinition);
    const name = 'projects/p1/limits/r1/devices.outpost/devices';
    limits.put({ name, service: 'services/devices.outpost', region: 'r1', configuredLimit: 1000, activeLimit: 1000 });

    for (const [table, columns] of Object.entries(UNINDEXED)) {
      const indexed = indexDefinitions(storage, table);
      expect(indexed).toContain('f_service'); // the table's other columns keep theirs
      for (const column of columns) expect(indexed).not.toContain(column);
    }

    limits.patch(name, (doc) => ({ ...doc, configuredLimit: 1500, activeLimit: 1500 }));
    const named = (conditions: Parameters<typeof limits.list>[0]): unknown[] =>
      limits.list(conditions).map((doc) => doc.name);
    expect(named({ where: [where.equals('configuredLimit', 1500)] })).toEqual([name]);
    expect(named({ where: [where.equals('activeLimit', 1000)] })).toEqual([]);
  });
});

/** The definitions of a table's indexes, lower case, one a line. */
function indexDefinitions(storage: Storage, table: string): string {
  const rows =
    storage instanceof PgStorage
      ? storage.query('SELECT indexdef FROM pg_indexes WHERE tablename = ?', [table]).rows.map((row) => row[0])
      : (storage as SqliteStorage).db
          .prepare<[string], { sql: string }>(
            "SELECT sql FROM sqlite_master WHERE type = 'index' AND lower(tbl_name) = ?",
          )
          .all(table)
          .map((row) => row.sql);
  return rows.map((sql) => String(sql).toLowerCase()).join('\n');
}
