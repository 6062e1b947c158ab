import { parseFilter } from '@outpost/shared';
import { expect, it } from 'vitest';
import { ResourceEngine } from '../../src/resources/resource-engine.js';
import { where } from '../../src/resources/resource-query.js';
import { describeStorages } from '../helpers/storages.js';
import type { FreshStorage } from '../helpers/storages.js';
import { widgetDefinition } from '../helpers/widgets.js';

/** Engine queries: what services read instead of writing SQL, through a real SQLite file. */

const EU = 'projects/p1/regions/eu';
const US = 'projects/p1/regions/us';

function setUp(fresh: FreshStorage) {
  const engine = new ResourceEngine(fresh());
  const widgets = engine.register(widgetDefinition);
  const make = (parent: string, id: string, spec: Record<string, unknown>): void => {
    widgets.create({ parent, resource: { name: `${parent}/widgets/${id}`, spec } });
  };
  make(EU, 'wa', { color: 'red', size: 3, owner: 'projects/p1', enabled: true });
  make(EU, 'wb', { color: 'blue', size: 1, owner: 'projects/-' });
  make(EU, 'wc', { color: 'red', size: 2 });
  make(US, 'wd', { color: 'red', size: 5, enabled: false });
  return { engine, widgets };
}

const ids = (names: readonly string[]): string[] => names.map((name) => name.slice(name.lastIndexOf('/') + 2));
const docIds = (docs: readonly Record<string, unknown>[]): string[] => ids(docs.map((doc) => String(doc['name'])));

describeStorages('engine queries', (fresh) => {
  it('selects by equality, membership, presence, parent and their combinations', () => {
    const { widgets } = setUp(fresh);
    expect(docIds(widgets.list({ where: [where.equals('spec.color', 'red')] }))).toEqual(['a', 'c', 'd']);
    expect(docIds(widgets.list({ where: [where.equals('spec.enabled', false)] }))).toEqual(['d']);
    expect(docIds(widgets.list({ where: [where.in('spec.size', [1, 5])] }))).toEqual(['b', 'd']);
    expect(docIds(widgets.list({ where: [where.present('spec.owner')] }))).toEqual(['a', 'b']);
    expect(docIds(widgets.list({ where: [where.parent(EU), where.equals('spec.color', 'red')] }))).toEqual(['a', 'c']);
    expect(docIds(widgets.list({ where: [where.parent('projects/p1/regions/-')] }))).toEqual(['a', 'b', 'c', 'd']);
    expect(docIds(widgets.list({ where: [where.parentIn([US])] }))).toEqual(['d']);
    expect(widgets.list({ where: [where.parentIn([])] })).toEqual([]);
    const either = where.anyOf(where.equals('spec.color', 'blue'), where.equals('spec.size', 5));
    expect(docIds(widgets.list({ where: [either] }))).toEqual(['b', 'd']);
    expect(docIds(widgets.list({ where: [where.not(either)] }))).toEqual(['a', 'c']);
    // the constant conditions of empty alternatives, nested where a store must read them as booleans
    expect(docIds(widgets.list({ where: [where.not(where.parentIn([]))] }))).toEqual(['a', 'b', 'c', 'd']);
    expect(docIds(widgets.list({ where: [where.not(where.anyOf())] }))).toEqual(['a', 'b', 'c', 'd']);
    expect(widgets.list({ where: [where.anyOf(where.parentIn([]), where.anyOf())] })).toEqual([]);
  });

  it('compares names exactly: a "-" in a structured value is no wildcard', () => {
    const { widgets } = setUp(fresh);
    expect(docIds(widgets.list({ where: [where.equals('spec.owner', 'projects/-')] }))).toEqual(['b']);
  });

  it('takes a parsed filter of the filter language', () => {
    const { widgets } = setUp(fresh);
    const filter = parseFilter('spec.size >= 2 AND spec.color = "red"', widgetDefinition.filterSchema);
    expect(docIds(widgets.list({ where: [where.filter(filter)] }))).toEqual(['a', 'c', 'd']);
    expect(widgets.count({ where: [where.filter(filter), where.parent(EU)] })).toBe(2);
  });

  it('orders by paths, then by name, and limits', () => {
    const { widgets } = setUp(fresh);
    expect(docIds(widgets.list({ orderBy: [{ path: 'spec.size', desc: true }] }))).toEqual(['d', 'a', 'c', 'b']);
    expect(docIds(widgets.list({ orderBy: [{ path: 'name', desc: true }], limit: 2 }))).toEqual(['d', 'c']);
    expect(ids(widgets.names({ where: [where.equals('spec.color', 'red')] }))).toEqual(['a', 'c', 'd']);
  });

  it('counts, finds rows, and moves its version with every write', () => {
    const { widgets } = setUp(fresh);
    expect(widgets.count()).toBe(4);
    const before = widgets.version;
    const row = widgets.findRow(`${EU}/widgets/wa`);
    expect(row?.doc['name']).toBe(`${EU}/widgets/wa`);
    expect([...widgets.findRows([`${EU}/widgets/wa`, `${EU}/widgets/wzz`]).keys()]).toEqual([`${EU}/widgets/wa`]);
    widgets.delete({ name: `${EU}/widgets/wa` });
    expect(widgets.version).toBeGreaterThan(before);
    expect(widgets.count({ where: [where.equals('spec.color', 'red')] })).toBe(2);
  });

  it('refuses a path the resource cannot be queried by', () => {
    const { widgets } = setUp(fresh);
    expect(() => widgets.list({ where: [where.equals('spec.nothing', 'x')] })).toThrow(/cannot be queried/);
  });
});
