import { describe, expect, it } from 'vitest';
import { ResourceEngine } from '../../src/resources/resource-engine.js';
import { tempDatabases } from '../helpers/temp-databases.js';
import { widgetDefinition } from '../helpers/widgets.js';

/**
 * The change log numbers appends at once but writes them many rows per statement: whatever the buffering,
 * the log must hold every committed write once, in order, under the number its document carries, and
 * nothing of what a savepoint or transaction undid.
 */
const freshDatabase = tempDatabases('outpost-change-log-');

function freshEngine() {
  const { db } = freshDatabase();
  const engine = new ResourceEngine(db);
  const widgets = engine.register(widgetDefinition);
  return { db, engine, widgets };
}

const PARENT = 'projects/p1/regions/eu';
const name = (id: string): string => `${PARENT}/widgets/${id}`;

describe('change log', () => {
  it('keeps large transactions and savepoints in order, without what a savepoint undid', () => {
    const { engine, widgets } = freshEngine();
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
    const { engine, widgets } = freshEngine();
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
    const { engine, widgets } = freshEngine();
    widgets.create({ parent: PARENT, resource: { name: name('doomed'), spec: { size: 3 } } });
    const start = engine.log.head();
    widgets.remove(name('doomed'));
    const [deleted] = engine.log.read('widgets', start, 10);
    expect(deleted).toMatchObject({ op: 'delete', name: name('doomed'), deleted: { spec: { size: 3 } } });
  });
});
