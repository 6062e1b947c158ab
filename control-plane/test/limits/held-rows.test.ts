import { expect, it } from 'vitest';
import { HeldRows } from '../../src/limits/held-rows.js';
import { ResourceEngine } from '../../src/resources/resource-engine.js';
import { describeStorages, type FreshStorage } from '../helpers/storages.js';
import { widgetDefinition } from '../helpers/widgets.js';

/** Rows read earlier are written over without reading them again only while nothing of their kind was written. */
const PARENT = 'projects/p1/regions/eu';
const A = `${PARENT}/widgets/w-a`;
const B = `${PARENT}/widgets/w-b`;

function start(fresh: FreshStorage) {
  const engine = new ResourceEngine(fresh());
  const widgets = engine.register(widgetDefinition);
  widgets.create({ parent: PARENT, resource: { name: A, spec: { size: 1 } } });
  widgets.create({ parent: PARENT, resource: { name: B, spec: { size: 1 } } });
  const held = new HeldRows(widgets);
  for (const row of widgets.query()) held.hold(row.doc.name, row);
  return { engine, widgets, held };
}

const color = (value: string) => ({ spec: { size: 1, color: value } });

describeStorages('HeldRows', (fresh) => {
  it('writes over what it holds while the table is unchanged', () => {
    const { engine, widgets, held } = start(fresh);
    engine.transaction(() => held.merge([[A, color('red')]]));
    expect(widgets.find(A)?.['spec']).toEqual({ size: 1, color: 'red' });
  });

  it('reads again once the table was written since, so no write is lost', () => {
    const { engine, widgets, held } = start(fresh);
    engine.transaction(() => {
      widgets.patch(A, (doc) => ({ ...doc, displayName: 'written meanwhile' }));
      held.merge([
        [A, color('red')],
        [B, color('blue')],
      ]);
    });
    expect(widgets.find(A)).toMatchObject({ displayName: 'written meanwhile', spec: { size: 1, color: 'red' } });
    expect(widgets.find(B)?.['spec']).toEqual({ size: 1, color: 'blue' });
  });

  it('writes more rows than one chunk holds, each once, in name order, held or not', () => {
    const { engine, widgets } = start(fresh);
    const names = Array.from({ length: 1_200 }, (_, i) => `${PARENT}/widgets/w-${String(i).padStart(4, '0')}`);
    for (const name of names) widgets.create({ parent: PARENT, resource: { name, spec: { size: 2 } } });
    const held = new HeldRows(widgets);
    for (const row of widgets.query()) {
      const name = row.doc.name;
      if (names.indexOf(name) % 2 === 0) held.hold(name, row);
    }
    const before = engine.log.head();
    const absent = `${PARENT}/widgets/w-absent`;
    engine.transaction(() =>
      held.merge([...names].reverse().map((name) => [name, { displayName: 'merged' }] as const)),
    );
    engine.transaction(() => held.merge([[absent, { displayName: 'merged' }]]));
    expect(names.every((name) => widgets.find(name)?.['displayName'] === 'merged')).toBe(true);
    expect(widgets.exists(absent)).toBe(false);
    expect(engine.log.read('widgets', before, 10_000).map((change) => change.name)).toEqual(names);
  });

  it('reads again after a rollback undid what it read', () => {
    const { engine, widgets } = start(fresh);
    let held: ReturnType<typeof start>['held'] | undefined;
    expect(() =>
      engine.transaction(() => {
        widgets.patch(A, (doc) => ({ ...doc, displayName: 'undone' }));
        held = new HeldRows(widgets);
        const row = widgets.findRow(A);
        if (row) held.hold(A, { id: row.id, text: JSON.stringify(row.doc) });
        throw new Error('undo');
      }),
    ).toThrow('undo');
    engine.transaction(() => held?.merge([[A, color('green')]]));
    expect(widgets.find(A)?.['displayName']).toBeUndefined();
    expect(widgets.find(A)?.['spec']).toEqual({ size: 1, color: 'green' });
  });
});
