import { describe, expect, it } from 'vitest';
import { ResourceEngine } from '../../../src/resources/resource-engine.js';
import { where } from '../../../src/resources/resource-query.js';
import { SyncPostgres } from '../../../src/resources/storage/postgres/sync-postgres.js';
import { settledTableStats } from '../../helpers/pg-table-stats.js';
import { postgresSuiteSkipped, suitePostgres } from '../../helpers/suite-postgres.js';
import { widgetDefinition } from '../../helpers/widgets.js';

/**
 * A list by one label in name order reads the rows that carry it, in order, from the side table's index: a page
 * costs its own rows whether one row in ten carries the label or three rows in 2,000 do. Before, a prepared
 * list's generic plan walked the names and probed the side table per row: every row of the table for a rare
 * label. Counted in the rows PostgreSQL fetched from the kind's table (its statistics).
 */
const PARENT = 'projects/p1/regions/eu';
const ROWS = 2_000;
const RARE = [100, 1_000, 1_900];
/** more than the five custom plans a prepared statement starts with */
const LISTS = 8;
const PAGE = 100;
const TITLE = 'PostgreSQL lists by one label';

const name = (i: number): string => `${PARENT}/widgets/w${String(i).padStart(5, '0')}`;

describe.skipIf(postgresSuiteSkipped(TITLE))(TITLE, () => {
  const postgres = suitePostgres();

  it('fetches only the rows it lists for a label three rows of 2,000 carry, also once its plan is generic', async () => {
    const url = postgres.createDatabase();
    const engine = new ResourceEngine(postgres.open(url));
    const widgets = engine.register(widgetDefinition);
    engine.transaction(() => {
      for (let i = 0; i < ROWS; i++) {
        const labels: Record<string, string> = { zone: `z${i % 10}` };
        if (RARE.includes(i)) labels['rare'] = 'yes';
        widgets.put({ name: name(i), metadata: { labels } });
      }
    });
    analyze(url); // as autovacuum does after many inserts
    const listed = (label: string): string[] =>
      widgets
        .list({ where: [where.parent(PARENT), where.contains('metadata.labels', label)], limit: PAGE })
        .map((w) => w.name);
    for (let i = 0; i < LISTS; i++) {
      expect(listed('zone:z3')).toEqual(Array.from({ length: PAGE }, (_, k) => name(3 + 10 * k)));
    }

    // an insert (which reads no row) before and after the lists measured: once the statistics count it, they
    // count what came before it
    let marks = 0;
    const mark = (): void => void widgets.put({ name: name(ROWS + marks++) });
    mark();
    const before = await fetchedAfter(url, ROWS + 1);
    for (let i = 0; i < LISTS; i++) expect(listed('rare:yes')).toEqual(RARE.map(name));
    mark();
    const after = await fetchedAfter(url, ROWS + 2);
    expect(after.fetched - before.fetched).toBe(LISTS * RARE.length);
  });

  it("gives a side table made before it kept its rows' names those names, and lists by label from it", () => {
    const url = postgres.createDatabase();
    const before = new ResourceEngine(postgres.open(url)).register(widgetDefinition);
    for (let i = 0; i < 30; i++) before.put({ name: name(i), metadata: { labels: { zone: `z${i % 3}` } } });
    const pg = new SyncPostgres(url);
    try {
      // the side table as it was: no names (and so no index in their order)
      pg.query('ALTER TABLE r_widgets_values DROP COLUMN row_name');
    } finally {
      pg.close();
    }

    const widgets = new ResourceEngine(postgres.open(url)).register(widgetDefinition);
    widgets.put({ name: name(30), metadata: { labels: { zone: 'z1' } } });
    const listed = widgets.list({ where: [where.parent(PARENT), where.contains('metadata.labels', 'zone:z1')] });
    expect(listed.map((w) => w.name)).toEqual([...Array.from({ length: 10 }, (_, k) => name(1 + 3 * k)), name(30)]);
  });
});

function analyze(url: string): void {
  const pg = new SyncPostgres(url);
  try {
    pg.query('ANALYZE r_widgets, r_widgets_values');
  } finally {
    pg.close();
  }
}

/** The kind's table's rows fetched (by index or by scan) and inserted, once it counts `inserts` inserts. */
async function fetchedAfter(url: string, inserts: number): Promise<{ fetched: number; inserted: number }> {
  const [fetched = 0, inserted = 0] = await settledTableStats(
    url,
    'r_widgets',
    ['coalesce(idx_tup_fetch, 0) + coalesce(seq_tup_read, 0)', 'n_tup_ins'],
    ([, done = 0]) => done >= inserts,
  );
  if (inserted < inserts) throw new Error(`the statistics did not count ${inserts} inserts`);
  return { fetched, inserted };
}
