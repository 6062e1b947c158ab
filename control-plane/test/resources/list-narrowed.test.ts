import { ApiError } from '@outpost/shared';
import { expect, it } from 'vitest';
import { listNarrowed } from '../../src/resources/list-operation.js';
import { ResourceEngine } from '../../src/resources/resource-engine.js';
import { where } from '../../src/resources/resource-query.js';
import { describeStorages, type FreshStorage } from '../helpers/storages.js';
import { widgetDefinition } from '../helpers/widgets.js';

/** A custom list is the generic list narrowed by conditions, across every parent, with its own page tokens. */
function setUp(fresh: FreshStorage) {
  const engine = new ResourceEngine(fresh());
  const widgets = engine.register(widgetDefinition);
  for (const region of ['eu', 'us']) {
    for (let i = 0; i < 5; i++) {
      const parent = `projects/p1/regions/${region}`;
      const color = i % 2 === 0 ? 'red' : 'blue';
      widgets.create({ parent, resource: { name: `${parent}/widgets/w${i}`, spec: { color, size: i } } });
    }
  }
  return { widgets };
}

const red = { conditions: [where.equals('spec.color', 'red')], key: ['widgets:red'] };

describeStorages('listNarrowed', (fresh) => {
  it('pages through the narrowed documents of every parent with the filter and order of the generic list', () => {
    const { widgets } = setUp(fresh);
    const seen: string[] = [];
    let pageToken: string | undefined;
    do {
      const page = listNarrowed(widgets, { pageSize: 2, orderBy: 'spec.size desc', pageToken }, red);
      seen.push(...page.items.map((doc) => String(doc['name']).replace('projects/p1/regions/', '')));
      pageToken = page.nextPageToken || undefined;
    } while (pageToken);
    expect(seen).toEqual([
      'eu/widgets/w4',
      'us/widgets/w4',
      'eu/widgets/w2',
      'us/widgets/w2',
      'eu/widgets/w0',
      'us/widgets/w0',
    ]);
    const filtered = listNarrowed(widgets, { filter: 'spec.size >= 2', includePagingInfo: true }, red);
    expect(filtered).toMatchObject({ totalResultsCount: 4, currentOffset: 0 });
  });

  it("refuses another list's page token", () => {
    const { widgets } = setUp(fresh);
    const { nextPageToken } = listNarrowed(widgets, { pageSize: 1 }, red);
    const blue = { conditions: [where.equals('spec.color', 'blue')], key: ['widgets:blue'] };
    expect(() => listNarrowed(widgets, { pageSize: 1, pageToken: nextPageToken }, blue)).toThrow(ApiError);
  });
});
