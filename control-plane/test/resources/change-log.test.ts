import { describe, expect, it } from 'vitest';
import { decodePaths } from '../../src/resources/change-facts.js';
import { ResourceEngine } from '../../src/resources/resource-engine.js';
import { describeStorages } from '../helpers/storages.js';
import type { FreshStorage } from '../helpers/storages.js';
import { tempDatabases } from '../helpers/temp-databases.js';
import { widgetDefinition } from '../helpers/widgets.js';

/**
 * The change log numbers appends at once but writes them many rows per statement: whatever the buffering,
 * the log must hold every committed write once, in order, under the number its document carries, and
 * nothing of what a savepoint or transaction undid.
 */
const freshDatabase = tempDatabases('outpost-change-log-');

function freshEngine(fresh: FreshStorage) {
  const engine = new ResourceEngine(fresh());
  const widgets = engine.register(widgetDefinition);
  return { engine, widgets };
}

const PARENT = 'projects/p1/regions/eu';
const name = (id: string): string => `${PARENT}/widgets/${id}`;

describeStorages('change log', (fresh) => {
  it('keeps large transactions and savepoints in order, without what a savepoint undid', () => {
    const { engine, widgets } = freshEngine(fresh);
    const start = engine.log.head();
    const kept: string[] = [];
    engine.transaction(() => {
      for (let i = 0; i < 700; i++) {
        widgets.create({ parent: PARENT, resource: { name: name(`a-${i}`) } });
        kept.push(name(`a-${i}`));
      }
      expect(() =>
        engine.savepoint(() => {
          for (let i = 0; i < 300; i++) widgets.create({ parent: PARENT, resource: { name: name(`undone-${i}`) } });
          throw new Error('refused');
        }),
      ).toThrow('refused');
      for (let i = 0; i < 5; i++) {
        widgets.create({ parent: PARENT, resource: { name: name(`b-${i}`) } });
        kept.push(name(`b-${i}`));
      }
    });
    const logged = engine.log.read('widgets', start, 10_000);
    expect(logged.map((c) => c.name)).toEqual(kept);
    expect(logged.map((c) => c.seq)).toEqual(kept.map((_, i) => start + 1 + i));
    expect(engine.log.head()).toBe(start + kept.length);
    for (const change of logged) {
      const stored = widgets.find(change.name) as { metadata: { resourceVersion: string } };
      expect(stored.metadata.resourceVersion).toBe(String(change.seq));
    }
    expect(widgets.exists(name('undone-0'))).toBe(false);
  });

  it('forgets the numbers of a transaction that rolled back', () => {
    const { engine, widgets } = freshEngine(fresh);
    widgets.create({ parent: PARENT, resource: { name: name('first') } });
    const start = engine.log.head();
    expect(() =>
      engine.transaction(() => {
        for (let i = 0; i < 600; i++) widgets.create({ parent: PARENT, resource: { name: name(`gone-${i}`) } });
        throw new Error('refused');
      }),
    ).toThrow('refused');
    expect(engine.log.head()).toBe(start);
    widgets.create({ parent: PARENT, resource: { name: name('next') } });
    expect(engine.log.read('widgets', start, 10).map((c) => [c.seq, c.name])).toEqual([[start + 1, name('next')]]);
  });

  it('keeps a deleted document', () => {
    const { engine, widgets } = freshEngine(fresh);
    widgets.create({ parent: PARENT, resource: { name: name('doomed'), spec: { size: 3 } } });
    const start = engine.log.head();
    widgets.remove(name('doomed'));
    const [deleted] = engine.log.read('widgets', start, 10);
    expect(deleted).toMatchObject({ op: 'delete', name: name('doomed'), deleted: { spec: { size: 3 } } });
  });

  it('keeps what a resume needs of an update: its changed paths and the previous values of changed filterable fields', async () => {
    const { engine, widgets } = freshEngine(fresh);
    const start = engine.log.head();
    widgets.put({ name: name('w1'), displayName: 'a', spec: { color: 'red', size: 1 } });
    // metadata.updateTime has millisecond resolution: the update must fall in a later millisecond to change it
    await new Promise((resolve) => setTimeout(resolve, 5));
    widgets.patch(name('w1'), (d) => ({ ...d, spec: { color: 'blue', size: 1 }, status: { counter: 3 } }));
    const [created, updated] = engine.log.read('widgets', start, 10);
    expect(created).toMatchObject({ op: 'create', paths: null, prior: null });
    expect(updated!.op).toBe('update');
    expect(decodePaths(updated!.paths!)).toEqual([
      'metadata.generation',
      'metadata.resourceVersion',
      'metadata.updateTime',
      'spec.color',
      'status.counter',
    ]);
    const createTime = (widgets.find(name('w1'))!['metadata'] as { createTime: string }).createTime;
    expect(JSON.parse(updated!.prior!)).toEqual([
      ['metadata.updateTime', createTime],
      ['metadata.generation', 1],
      ['spec.color', 'red'],
      ['status.counter', null],
    ]);
  });
});

describe('change log [sqlite]', () => {
  it('upgrades a log written by an earlier version: its rows read as puts that kept neither paths nor values', () => {
    const { db } = freshDatabase();
    db.exec(`CREATE TABLE change_log (
      seq INTEGER PRIMARY KEY AUTOINCREMENT, plural TEXT NOT NULL, name TEXT NOT NULL, op TEXT NOT NULL,
      doc TEXT, time TEXT NOT NULL)`);
    db.prepare("INSERT INTO change_log(plural, name, op, doc, time) VALUES ('widgets', ?, 'put', NULL, ?)").run(
      name('old'),
      new Date().toISOString(),
    );
    const engine = new ResourceEngine(db);
    const widgets = engine.register(widgetDefinition);
    widgets.put({ name: name('new'), spec: { size: 1 } });
    expect(engine.log.read('widgets', 0, 10).map((c) => [c.seq, c.op, c.paths])).toEqual([
      [1, 'put', null],
      [2, 'create', null],
    ]);
  });
});
