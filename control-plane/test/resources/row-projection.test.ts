import { ID_RULES, NamePattern } from '@outpost/shared';
import { expect, it } from 'vitest';
import { ResourceEngine } from '../../src/resources/resource-engine.js';
import type { Doc } from '../../src/resources/resource-table.js';
import { RowProjection } from '../../src/resources/row-projection.js';
import { describeStorages } from '../helpers/storages.js';
import type { FreshStorage } from '../helpers/storages.js';
import { widgetDefinition } from '../helpers/widgets.js';

/**
 * A row projection holds a value per stored row and follows the table's writes: it reads the table only
 * when it is built and again after a write it could not follow (one undone by a rollback).
 */

const gadgetDefinition = {
  ...widgetDefinition,
  kind: 'Gadget',
  singular: 'gadget',
  plural: 'gadgets',
  patterns: [
    new NamePattern('projects/{project}/regions/{region}/gadgets/{gadget}', {
      project: ID_RULES.device,
      region: ID_RULES.device,
      gadget: ID_RULES.device,
    }),
  ],
};

const PARENT = 'projects/p1/regions/eu';

function setUp(fresh: FreshStorage) {
  const engine = new ResourceEngine(fresh());
  const widgets = engine.register(widgetDefinition);
  const gadgets = engine.register(gadgetDefinition);
  for (let i = 0; i < 5; i++) {
    widgets.create({ parent: PARENT, resource: { name: `${PARENT}/widgets/w${i}`, displayName: `widget ${i}` } });
    gadgets.create({ parent: PARENT, resource: { name: `${PARENT}/gadgets/g${i}`, displayName: `gadget ${i}` } });
  }
  return { engine, widgets, gadgets };
}

/** A projection of display names that counts the documents it derived a value from. */
function counted(table: ConstructorParameters<typeof RowProjection>[0]) {
  const derived = { count: 0 };
  const projection = new RowProjection(table, (doc: Doc) => {
    derived.count++;
    return `${String(doc['name']).split('/').pop()}=${String(doc['displayName'])}`;
  });
  return { projection, derived };
}

describeStorages('RowProjection', (fresh) => {
  it('follows creates, updates and deletes without reading the table again', () => {
    const { widgets } = setUp(fresh);
    const { projection, derived } = counted(widgets.table);
    projection.build();
    expect(derived.count).toBe(5);
    widgets.update({ resource: { name: `${PARENT}/widgets/w1`, displayName: 'renamed' }, updateMask: 'displayName' });
    widgets.create({ parent: PARENT, resource: { name: `${PARENT}/widgets/w9`, displayName: 'new' } });
    widgets.delete({ name: `${PARENT}/widgets/w3` });
    expect(projection.values()).toEqual(['w0=widget 0', 'w1=renamed', 'w2=widget 2', 'w4=widget 4', 'w9=new']);
    expect(derived.count).toBe(7); // the update and the create, nothing read again
  });

  it('reads a table again after a rollback undid writes to it, and only that table', () => {
    const { engine, widgets, gadgets } = setUp(fresh);
    const w = counted(widgets.table);
    const g = counted(gadgets.table);
    w.projection.build();
    g.projection.build();
    engine.transaction(() => {
      gadgets.update({ resource: { name: `${PARENT}/gadgets/g0`, displayName: 'kept' }, updateMask: 'displayName' });
      expect(() =>
        engine.savepoint(() => {
          widgets.update({
            resource: { name: `${PARENT}/widgets/w0`, displayName: 'undone' },
            updateMask: 'displayName',
          });
          widgets.create({ parent: PARENT, resource: { name: `${PARENT}/widgets/w8`, displayName: 'undone' } });
          throw new Error('refused');
        }),
      ).toThrow('refused');
    });
    expect(w.projection.values()).toEqual(['w0=widget 0', 'w1=widget 1', 'w2=widget 2', 'w3=widget 3', 'w4=widget 4']);
    expect(w.derived.count).toBe(5 + 2 + 5); // followed the two writes, then read the table again
    expect(g.projection.values()).toEqual(['g0=kept', 'g1=gadget 1', 'g2=gadget 2', 'g3=gadget 3', 'g4=gadget 4']);
    expect(g.derived.count).toBe(5 + 1); // its table was not written in the undone part
  });

  it('gives one row by name only while what it holds is current, and never reads the table for it', () => {
    const { engine, widgets } = setUp(fresh);
    const { projection, derived } = counted(widgets.table);
    expect(projection.held(`${PARENT}/widgets/w1`)).toBeUndefined(); // not built: nothing held
    projection.build();
    widgets.update({ resource: { name: `${PARENT}/widgets/w1`, displayName: 'renamed' }, updateMask: 'displayName' });
    expect(projection.held(`${PARENT}/widgets/w1`)).toBe('w1=renamed');
    expect(projection.held(`${PARENT}/widgets/w6`)).toBeUndefined();
    expect(() =>
      engine.savepoint(() => {
        widgets.delete({ name: `${PARENT}/widgets/w2` });
        throw new Error('refused');
      }),
    ).toThrow('refused');
    expect(projection.held(`${PARENT}/widgets/w1`)).toBeUndefined(); // a write went by unseen
    expect(derived.count).toBe(5 + 1);
    projection.build();
    expect(projection.held(`${PARENT}/widgets/w2`)).toBe('w2=widget 2');
  });

  it('stops following its table when closed', () => {
    const { widgets } = setUp(fresh);
    const { projection, derived } = counted(widgets.table);
    projection.close();
    projection.build(); // holds the rows again, but no longer told of writes
    widgets.create({ parent: PARENT, resource: { name: `${PARENT}/widgets/w7`, displayName: 'later' } });
    expect(derived.count).toBe(5);
    expect(projection.values()).toHaveLength(6); // the version moved unseen: read again
    expect(derived.count).toBe(5 + 6);
  });
});
