import { expect, it } from 'vitest';
import { ResourceEngine } from '../../src/resources/resource-engine.js';
import { where } from '../../src/resources/resource-query.js';
import { describeStorages } from '../helpers/storages.js';
import { widgetDefinition } from '../helpers/widgets.js';

/** ResourceEngine.batch on both stores: the calls of one turn share one transaction, and each failure is its own. */
const PARENT = 'projects/p1/regions/eu';
const name = (id: string): string => `${PARENT}/widgets/w-${id}`;

describeStorages('group commit (ResourceEngine.batch)', (fresh) => {
  function start() {
    const engine = new ResourceEngine(fresh());
    const widgets = engine.register(widgetDefinition);
    const seen: string[] = [];
    widgets.subscribe((change) => seen.push(change.name));
    return { engine, widgets, seen, before: engine.log.head() };
  }

  it('runs the calls of one turn in one transaction; a failing call undoes only its own writes', async () => {
    const { engine, widgets, seen, before } = start();
    const calls = [
      engine.batch(() => widgets.create({ parent: PARENT, resource: { name: name('a') } })),
      engine.batch(() => {
        widgets.create({ parent: PARENT, resource: { name: name('b') } });
        throw new Error('refused');
      }),
      engine.batch(() => widgets.create({ parent: PARENT, resource: { name: name('c') } })),
    ];
    expect(widgets.exists(name('a'))).toBe(false); // nothing runs before the end of the turn
    const outcomes = await Promise.allSettled(calls);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(engine.storage.inTransaction).toBe(false);
    expect(['a', 'b', 'c'].map((id) => widgets.exists(name(id)))).toEqual([true, false, true]);
    expect(seen).toEqual([name('a'), name('c')]);
    expect(engine.log.head()).toBe(before + 2);
  });

  it('a write the store itself refuses (a taken name) undoes only its call, and the turn goes on', async () => {
    const { engine, widgets, seen, before } = start();
    const calls = [
      engine.batch(() => widgets.create({ parent: PARENT, resource: { name: name('a'), spec: { color: 'red' } } })),
      engine.batch(() => {
        widgets.put({ name: name('d'), spec: { color: 'blue' } });
        return widgets.create({ parent: PARENT, resource: { name: name('a') } });
      }),
      engine.batch(() => widgets.create({ parent: PARENT, resource: { name: name('c') } })),
    ];
    const outcomes = await Promise.allSettled(calls);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(engine.storage.inTransaction).toBe(false);
    expect(['a', 'c', 'd'].map((id) => widgets.exists(name(id)))).toEqual([true, true, false]);
    expect(widgets.count({ where: [where.equals('spec.color', 'blue')] })).toBe(0);
    expect(seen).toEqual([name('a'), name('c')]);
    expect(engine.log.head()).toBe(before + 2);
  });

  it('a call alone in its turn that fails leaves nothing behind, and the next turn goes on', async () => {
    const { engine, widgets, seen, before } = start();
    const failed = engine.batch(() => {
      widgets.create({ parent: PARENT, resource: { name: name('x') } });
      widgets.create({ parent: PARENT, resource: { name: name('y') } });
      throw new Error('refused');
    });
    await expect(failed).rejects.toThrow('refused');
    expect(engine.storage.inTransaction).toBe(false);
    expect([widgets.exists(name('x')), widgets.exists(name('y'))]).toEqual([false, false]);
    expect(engine.log.head()).toBe(before);
    await expect(
      engine.batch(() => widgets.create({ parent: PARENT, resource: { name: name('z') } })),
    ).resolves.toMatchObject({ name: name('z') });
    expect(seen).toEqual([name('z')]);
    expect(engine.log.head()).toBe(before + 1);
  });

  it('inside a transaction a call joins it', async () => {
    const { engine, widgets } = start();
    let promise: Promise<unknown> | undefined;
    engine.transaction(() => {
      promise = engine.batch(() => widgets.create({ parent: PARENT, resource: { name: name('inner') } }));
    });
    expect(widgets.exists(name('inner'))).toBe(true);
    await expect(promise).resolves.toMatchObject({ name: name('inner') });
  });
});
