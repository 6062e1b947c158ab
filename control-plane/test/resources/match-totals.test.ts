import { expect, it } from 'vitest';
import { listResources } from '../../src/resources/list-operation.js';
import { ResourceEngine } from '../../src/resources/resource-engine.js';
import type { ListRequest } from '../../src/resources/requests.js';
import { PgStorage } from '../../src/resources/storage/postgres/pg-storage.js';
import { describeStorages } from '../helpers/storages.js';
import type { FreshStorage } from '../helpers/storages.js';
import { widgetDefinition } from '../helpers/widgets.js';

/** totalResultsCount is counted once per walk through pages, and is right after every kind of write. */

const PARENT = 'projects/p1/regions/eu';
const RED = 'spec.color = "red"';

function setUp(fresh: FreshStorage) {
  const storage = fresh();
  const engine = new ResourceEngine(storage);
  engine.register(widgetDefinition);
  const widgets = engine.resource('widgets');
  const put = (id: number, color: string, labels: Record<string, string> = {}): void => {
    widgets.put({ name: `${PARENT}/widgets/w${String(id).padStart(3, '0')}`, metadata: { labels }, spec: { color } });
  };
  engine.transaction(() => {
    for (let i = 0; i < 30; i++) put(i, i % 3 === 0 ? 'red' : 'blue', { zone: i % 2 === 0 ? 'a' : 'b' });
  });
  const list = (req: Omit<ListRequest, 'parent'>) =>
    listResources(widgets, { parent: PARENT, pageSize: 3, includePagingInfo: true, ...req });
  return { storage, engine, widgets, put, list };
}

describeStorages('list totals', (fresh, kind) => {
  it('follows inserts, removals, updates out of the filter and rollbacks between pages', () => {
    const { engine, widgets, put, list } = setUp(fresh);
    const first = list({ filter: RED });
    expect(first.totalResultsCount).toBe(10);
    expect(list({ filter: RED, pageToken: first.nextPageToken }).totalResultsCount).toBe(10);

    put(100, 'red');
    expect(list({ filter: RED, pageToken: first.nextPageToken }).totalResultsCount).toBe(11);
    widgets.remove(`${PARENT}/widgets/w003`);
    expect(list({ filter: RED, pageToken: first.nextPageToken }).totalResultsCount).toBe(10);
    put(6, 'blue');
    expect(list({ filter: RED }).totalResultsCount).toBe(9);
    expect(() =>
      engine.transaction(() => {
        put(101, 'red');
        expect(list({ filter: RED }).totalResultsCount).toBe(10); // the transaction's own insert counts in it
        throw new Error('undo');
      }),
    ).toThrow('undo');
    expect(list({ filter: RED }).totalResultsCount).toBe(9);
    // another filter, and the labels side table
    expect(list({ filter: 'spec.color = "blue"' }).totalResultsCount).toBe(21);
    expect(list({ filter: 'metadata.labels CONTAINS "zone:a"' }).totalResultsCount).toBe(14); // w006 was written again without labels
    expect(list({}).totalResultsCount).toBe(30);
  });

  if (kind === 'postgres') {
    it('costs one round trip more than a page without paging info (its offset) after the first page', () => {
      const { storage, list } = setUp(fresh);
      if (!(storage instanceof PgStorage)) throw new Error('expected PostgreSQL');
      const roundTrips = (read: () => unknown): number => {
        const before = storage.roundTrips;
        read();
        return storage.roundTrips - before;
      };
      let token = list({ filter: RED }).nextPageToken;
      for (let page = 1; page < 3; page++) {
        const plain = roundTrips(() => list({ filter: RED, pageToken: token, includePagingInfo: false }));
        let next = '';
        const counted = roundTrips(() => (next = list({ filter: RED, pageToken: token }).nextPageToken));
        expect(counted - plain).toBe(1);
        token = next;
      }
    });
  }
});
