import { expect, it } from 'vitest';
import { listResources } from '../../src/resources/list-operation.js';
import { ResourceEngine } from '../../src/resources/resource-engine.js';
import type { ListRequest } from '../../src/resources/requests.js';
import { PgStorage } from '../../src/resources/storage/postgres/pg-storage.js';
import { describeStorages } from '../helpers/storages.js';
import type { FreshStorage } from '../helpers/storages.js';
import { widgetDefinition } from '../helpers/widgets.js';

/**
 * A page read from a token says whether matches lie beyond it on the token's side (its prevPageToken going
 * forward, its nextPageToken going back) from the token's position, read together with the page: right however
 * the rows at and around the position changed since, and on PostgreSQL in the page's own round trip.
 */

const PARENT = 'projects/p1/regions/eu';
const ZONE_A = 'metadata.labels CONTAINS "zone:a"';
const name = (i: number): string => `${PARENT}/widgets/w${String(i).padStart(3, '0')}`;

function setUp(fresh: FreshStorage) {
  const storage = fresh();
  const engine = new ResourceEngine(storage);
  engine.register(widgetDefinition);
  const widgets = engine.resource('widgets');
  engine.transaction(() => {
    for (let i = 0; i < 12; i++)
      widgets.put({ name: name(i), metadata: { labels: { zone: i % 2 === 0 ? 'a' : 'b' } } });
  });
  const list = (req: Omit<ListRequest, 'parent'>) => listResources(widgets, { parent: PARENT, pageSize: 2, ...req });
  const names = (page: { items: unknown[] }): string[] => page.items.map((item) => (item as { name: string }).name);
  return { storage, widgets, list, names };
}

describeStorages('page tokens of a page read from a token', (fresh, kind) => {
  it('has a previous page while a match is at or before its position, whatever was removed there', () => {
    const { widgets, list, names } = setUp(fresh);
    const first = list({ filter: ZONE_A }); // w000, w002
    expect(names(first)).toEqual([name(0), name(2)]);

    widgets.remove(name(2)); // the row at the position
    const second = list({ filter: ZONE_A, pageToken: first.nextPageToken });
    expect(names(second)).toEqual([name(4), name(6)]);
    expect(second.prevPageToken).not.toBe('');
    expect(names(list({ filter: ZONE_A, pageToken: second.prevPageToken }))).toEqual([name(0)]);

    widgets.remove(name(0)); // nothing matches before the position any more
    expect(list({ filter: ZONE_A, pageToken: first.nextPageToken }).prevPageToken).toBe('');

    widgets.put({ name: name(2), metadata: { labels: { zone: 'a' } } }); // the row at the position alone
    expect(list({ filter: ZONE_A, pageToken: first.nextPageToken }).prevPageToken).not.toBe('');
  });

  it('has a next page, going back, while a match is at or after its position', () => {
    const { widgets, list, names } = setUp(fresh);
    const first = list({ filter: ZONE_A });
    const second = list({ filter: ZONE_A, pageToken: first.nextPageToken }); // w004, w006
    widgets.remove(name(4)); // the row at the position of the token back
    const back = list({ filter: ZONE_A, pageToken: second.prevPageToken });
    expect(names(back)).toEqual([name(0), name(2)]);
    expect(back.nextPageToken).not.toBe('');
    expect(back.prevPageToken).toBe('');

    for (const i of [6, 8, 10]) widgets.remove(name(i)); // nothing at or after the position
    expect(list({ filter: ZONE_A, pageToken: second.prevPageToken }).nextPageToken).toBe('');
  });

  if (kind === 'postgres') {
    it('reads a page from a token, with what lies beyond it, in one round trip either way', () => {
      const { storage, list } = setUp(fresh);
      if (!(storage instanceof PgStorage)) throw new Error('expected PostgreSQL');
      const roundTrips = <T>(read: () => T): [T, number] => {
        const before = storage.roundTrips;
        const result = read();
        return [result, storage.roundTrips - before];
      };
      const first = list({ filter: ZONE_A });
      const [second, forward] = roundTrips(() => list({ filter: ZONE_A, pageToken: first.nextPageToken }));
      const [, back] = roundTrips(() => list({ filter: ZONE_A, pageToken: second.prevPageToken }));
      expect([forward, back]).toEqual([1, 1]);
    });
  }
});
