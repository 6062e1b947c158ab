import { describe, expect, it } from 'vitest';
import { parseFilter } from '@outpost/shared';
import { ResourceEngine } from '../../../src/resources/resource-engine.js';
import { where } from '../../../src/resources/resource-query.js';
import { RESOURCE_TABLE_FILLFACTOR } from '../../../src/resources/storage/postgres/pg-table.js';
import type { PgStorage } from '../../../src/resources/storage/postgres/pg-storage.js';
import { settledTableStats } from '../../helpers/pg-table-stats.js';
import { postgresSuiteSkipped, suitePostgres } from '../../helpers/suite-postgres.js';
import { widgetDefinition } from '../../helpers/widgets.js';

/**
 * A write that changes no indexed column (a status report: only metadata.updateTime and unfiltered status
 * members move) is a heap-only update on PostgreSQL: it writes no index entry. That needs room on the row's page
 * (the tables' fillfactor) and no index on a column every write moves (metadata.updateTime has none), also in a
 * table made before either was so.
 */
const PARENT = 'projects/p1/regions/eu';
const ROWS = 150;
const TITLE = 'PostgreSQL heap-only status writes';

const name = (i: number): string => `${PARENT}/widgets/w${i}`;

describe.skipIf(postgresSuiteSkipped(TITLE))(TITLE, () => {
  const postgres = suitePostgres();

  it('writes the status of many rows without touching an index, and filters on updateTime still answer', async () => {
    const url = postgres.createDatabase();
    const storage = postgres.open(url);
    const engine = new ResourceEngine(storage);
    const widgets = engine.register(widgetDefinition);
    engine.transaction(() => {
      for (let i = 0; i < ROWS; i++) widgets.put({ name: name(i), spec: { size: i }, status: { state: 'IDLE' } });
    });
    const created = metaOf(widgets.find(name(0)))['updateTime']!;
    expect(indexedColumns(storage)).not.toContain('f_metadata_updatetime');

    // a status write each, as the status writer's flushes spread over the table
    for (let round = 1; round <= 2; round++) {
      for (let i = 0; i < ROWS; i++) {
        widgets.patch(name(i), (doc) => ({
          ...doc,
          status: { ...doc.status, uptimeSeconds: round * 1000 + i },
        }));
      }
    }
    const stats = await settledStats(url, 2 * ROWS);
    expect(stats).toEqual({ updated: 2 * ROWS, heapOnly: 2 * ROWS });

    const updated = metaOf(widgets.find(name(7)))['updateTime']!;
    expect(updated > created).toBe(true);
    // the unindexed column still follows the documents
    expect(widgets.list({ where: [where.equals('metadata.updateTime', updated)] }).map((w) => w.name)).toContain(
      name(7),
    );
    const before = parseFilter(`metadata.updateTime < "${created}"`, widgetDefinition.filterSchema);
    expect(widgets.list({ where: [where.filter(before)] })).toHaveLength(0);
    const since = parseFilter(`metadata.updateTime >= "${updated}"`, widgetDefinition.filterSchema);
    expect(widgets.list({ where: [where.filter(since)] }).length).toBeGreaterThan(0);
  });

  it('upgrades a table made without room on its pages and with an index on metadata.updateTime', () => {
    const url = postgres.createDatabase();
    const old = postgres.open(url);
    new ResourceEngine(old).register(widgetDefinition).put({ name: name(1), spec: { size: 1 } });
    old.run([
      { sql: 'ALTER TABLE r_widgets RESET (fillfactor)' },
      { sql: 'CREATE INDEX r_widgets_by_f_metadata_updateTime ON r_widgets(f_metadata_updateTime)' },
    ]);
    expect(fillfactorOf(old)).toBeUndefined();
    expect(indexedColumns(old)).toContain('f_metadata_updatetime');

    const upgraded = postgres.open(url);
    const widgets = new ResourceEngine(upgraded).register(widgetDefinition);
    expect(fillfactorOf(upgraded)).toBe(RESOURCE_TABLE_FILLFACTOR);
    expect(indexedColumns(upgraded)).not.toContain('f_metadata_updatetime');
    expect(widgets.list({ where: [where.equals('spec.size', 1)] }).map((w) => w.name)).toEqual([name(1)]);
  });
});

const metaOf = (doc: Record<string, unknown> | undefined): Record<string, string> =>
  (doc?.['metadata'] ?? {}) as Record<string, string>;

/** The columns of r_widgets's indexes, as PostgreSQL's catalog spells their definitions. */
function indexedColumns(storage: PgStorage): string {
  return storage
    .query("SELECT indexdef FROM pg_indexes WHERE tablename = 'r_widgets'")
    .rows.map((row) => String(row[0]).toLowerCase())
    .join('\n');
}

function fillfactorOf(storage: PgStorage): number | undefined {
  const options = storage.query("SELECT reloptions FROM pg_class WHERE oid = to_regclass('r_widgets')").rows[0]?.[0];
  const setting = Array.isArray(options) ? options.find((o) => String(o).startsWith('fillfactor=')) : undefined;
  return setting === undefined ? undefined : Number(String(setting).split('=')[1]);
}

/**
 * r_widgets's update counts once PostgreSQL's statistics show at least `updates` (a backend reports them
 * when it goes idle, within seconds), read on a connection of its own.
 */
async function settledStats(url: string, updates: number): Promise<{ updated: number; heapOnly: number }> {
  const [updated = 0, heapOnly = 0] = await settledTableStats(
    url,
    'r_widgets',
    ['n_tup_upd', 'n_tup_hot_upd'],
    ([done = 0]) => done >= updates,
  );
  return { updated, heapOnly };
}
