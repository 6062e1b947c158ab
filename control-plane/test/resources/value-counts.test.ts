import { expect, it } from 'vitest';
import { ResourceEngine } from '../../src/resources/resource-engine.js';
import { describeStorages, type FreshStorage } from '../helpers/storages.js';
import { widgetDefinition } from '../helpers/widgets.js';

/** Value counts follow the table's writes: the distinct values held, without reading the table again. */
const PARENT = 'projects/p1/regions/eu';

function setUp(fresh: FreshStorage) {
  const engine = new ResourceEngine(fresh());
  const widgets = engine.register(widgetDefinition);
  const put = (id: string, color: string) => widgets.put({ name: `${PARENT}/widgets/${id}`, spec: { color } });
  let read = 0;
  const colors = widgets.countValues((doc) => {
    read++;
    const color = (doc['spec'] as { color?: string } | undefined)?.color;
    return color ? [color] : [];
  });
  return { engine, widgets, put, colors, reads: () => read };
}

describeStorages('ValueCounts', (fresh) => {
  it('keeps the distinct values through creates, updates and deletes', () => {
    const { widgets, put, colors, reads } = setUp(fresh);
    put('wa', 'red');
    put('wb', 'red');
    expect(colors.values()).toEqual(['red']);
    const afterBuild = reads();
    put('wc', 'blue');
    put('wa', 'green');
    expect(colors.values()).toEqual(['blue', 'green', 'red']);
    widgets.remove(`${PARENT}/widgets/wb`);
    expect(colors.values()).toEqual(['blue', 'green']);
    expect(reads()).toBe(afterBuild + 2); // each write derived once, the table not read again
  });

  it('counts the table again after a rollback it could not follow', () => {
    const { engine, put, colors } = setUp(fresh);
    put('wa', 'red');
    expect(colors.values()).toEqual(['red']);
    expect(() =>
      engine.transaction(() => {
        put('wb', 'blue');
        throw new Error('undo');
      }),
    ).toThrow('undo');
    expect(colors.values()).toEqual(['red']);
  });
});
