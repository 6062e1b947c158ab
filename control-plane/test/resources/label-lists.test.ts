import { expect, it } from 'vitest';
import { evaluateFilter, parseFilter } from '@outpost/shared';
import { listResources } from '../../src/resources/list-operation.js';
import { ResourceEngine } from '../../src/resources/resource-engine.js';
import { where } from '../../src/resources/resource-query.js';
import type { ListRequest } from '../../src/resources/requests.js';
import { SqliteTable } from '../../src/resources/storage/sqlite/sqlite-table.js';
import { describeStorages } from '../helpers/storages.js';
import type { FreshStorage } from '../helpers/storages.js';
import { widgetDefinition } from '../helpers/widgets.js';
import type { Widget } from '../helpers/widgets.js';

/**
 * A list by one label in name order reads the label's rows in name order from the side table (see
 * valueDrivenRead): its pages, their tokens both ways and its paging info must be exactly what the in-memory
 * evaluator selects, under a parent (whose names the side table bounds as a range) and across parents, for a
 * label one row in ten carries and one that four rows of 600 carry.
 */

/** regions whose names sort right around `eu/`, the range a list under `eu` reads: `eu-west` before, `eu2` after */
const REGIONS = [
  'projects/p1/regions/eu',
  'projects/p1/regions/eu-west',
  'projects/p1/regions/eu2',
  'projects/p2/regions/eu',
];
const ROWS = 600;
const RARE = [7, 250, 251, 598];
const COMMON = 'metadata.labels CONTAINS "zone:z3"';
const RARE_LABEL = 'metadata.labels CONTAINS "rare:yes"';
const PAGE = 7;

const widgetOf = (i: number): Widget => ({
  name: `${REGIONS[i % REGIONS.length]}/widgets/w${String(i).padStart(4, '0')}`,
  metadata: { labels: { zone: `z${i % 10}`, ...(RARE.includes(i) ? { rare: 'yes' } : {}) } },
  spec: { size: i % 7 },
});

function setUp(fresh: FreshStorage) {
  const engine = new ResourceEngine(fresh());
  const widgets = engine.register(widgetDefinition);
  engine.transaction(() => {
    for (let i = 0; i < ROWS; i++) widgets.put(widgetOf(i));
  });
  // a label rewritten and a row removed after the writes above: the side table follows both
  widgets.put({ ...widgetOf(13), metadata: { labels: { zone: 'z3' } } });
  widgets.put({ ...widgetOf(3), metadata: { labels: { zone: 'z4' } } });
  widgets.remove(widgetOf(23).name);
  const docs = Array.from({ length: ROWS }, (_, i) => widgets.find(widgetOf(i).name)).filter((d) => d !== undefined);
  return { engine, widgets, docs };
}

describeStorages('lists by one label', (fresh, kind) => {
  const parents = [REGIONS[0]!, 'projects/-/regions/-'];
  const cases = parents.flatMap((parent) =>
    [COMMON, RARE_LABEL, `${COMMON} AND spec.size = 2`].flatMap((filter) =>
      ['', 'name desc'].map((orderBy) => ({ parent, filter, orderBy })),
    ),
  );

  it('pages forward and back with their tokens through exactly the rows the in-memory evaluator selects', () => {
    const { widgets, docs } = setUp(fresh);
    for (const { parent, filter, orderBy } of cases) {
      const parsed = parseFilter(filter, widgetDefinition.filterSchema);
      const underParent = (name: string): boolean => parent.includes('-') || name.startsWith(`${parent}/widgets/`);
      const expected = docs
        .filter((doc) => underParent(String(doc['name'])) && evaluateFilter(parsed, doc))
        .map((doc) => String(doc['name']))
        .sort();
      if (orderBy === 'name desc') expected.reverse();
      const list = (req: Partial<ListRequest>) =>
        listResources(widgets, { parent, filter, orderBy, pageSize: PAGE, includePagingInfo: true, ...req });
      const names = (page: { items: unknown[] }): string[] => page.items.map((item) => (item as Widget).name);

      const forward: string[] = [];
      const pages = [];
      let page = list({});
      for (;;) {
        expect(page.currentOffset, `${filter} under ${parent}`).toBe(forward.length);
        expect(page.totalResultsCount).toBe(expected.length);
        forward.push(...names(page));
        pages.push(page);
        if (!page.nextPageToken) break;
        page = list({ pageToken: page.nextPageToken });
      }
      expect(forward, `${filter} under ${parent}, ${orderBy || 'name'}`).toEqual(expected);

      const back: string[] = [];
      page = pages[pages.length - 1]!;
      while (page.prevPageToken) {
        page = list({ pageToken: page.prevPageToken });
        back.unshift(...names(page));
      }
      expect([...back, ...names(pages[pages.length - 1]!)], `${filter} back under ${parent}`).toEqual(expected);
    }
  });

  it('counts the rows with a label, and with it under a parent', () => {
    const { widgets, docs } = setUp(fresh);
    const rare = docs.filter((doc) => evaluateFilter(parseFilter(RARE_LABEL, widgetDefinition.filterSchema), doc));
    const contains = where.contains('metadata.labels', 'rare:yes');
    expect(widgets.count({ where: [contains] })).toBe(rare.length);
    for (const parent of REGIONS) {
      const under = rare.filter((doc) => String(doc['name']).startsWith(`${parent}/widgets/`));
      expect(widgets.count({ where: [where.parent(parent), contains] }), parent).toBe(under.length);
    }
  });

  if (kind === 'sqlite') {
    it("reads and counts a rare label's rows from the side table's index in name order, and only their rows by id", () => {
      const { widgets } = setUp(fresh);
      const table = widgets.table;
      if (!(table instanceof SqliteTable)) throw new Error('expected SQLite');
      for (const parent of [REGIONS[0]!, 'projects/-/regions/-']) {
        const query = widgets.tableQuery({
          where: [where.parent(parent), where.contains('metadata.labels', 'rare:yes')],
          limit: PAGE + 1,
        });
        const plan = table.queryPlan(query);
        expect(plan[0], plan.join('\n')).toMatch(/^SEARCH driving USING COVERING INDEX r_widgets_values_in_name_order/);
        expect(plan[1], plan.join('\n')).toMatch(/^SEARCH r_widgets USING INTEGER PRIMARY KEY \(rowid=\?\)$/);
        expect(plan).toHaveLength(2); // no sort, no scan, no subquery per row
        // a total needs no order: either index of the side table by value will do
        const total = table.queryPlan({ count: query.where });
        expect(total[0], total.join('\n')).toMatch(
          /^SEARCH driving USING COVERING INDEX r_widgets_values_\w+ \(path=\? AND value=\?/,
        );
        expect(total.slice(1), total.join('\n')).toEqual(['SEARCH r_widgets USING INTEGER PRIMARY KEY (rowid=?)']);
      }
    });
  }
});
