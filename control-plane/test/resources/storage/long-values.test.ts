import { randomBytes } from 'node:crypto';
import { ApiError } from '@outpost/shared';
import { expect, it } from 'vitest';
import { ResourceEngine } from '../../../src/resources/resource-engine.js';
import { describeStorages } from '../../helpers/storages.js';
import { widgetDefinition } from '../../helpers/widgets.js';

const PARENT = 'projects/p1/regions/eu';

describeStorages('a filterable value longer than an index entry', (fresh, kind) => {
  it('is stored by SQLite; PostgreSQL refuses it with INVALID_ARGUMENT and changes nothing', () => {
    const engine = new ResourceEngine(fresh());
    const widgets = engine.register(widgetDefinition);
    const long = randomBytes(6000).toString('base64'); // incompressible: well past PostgreSQL's ~2,700 bytes
    const write = (): unknown => widgets.put({ name: `${PARENT}/widgets/long`, displayName: long });
    const head = engine.log.head();
    if (kind === 'sqlite') {
      write();
      expect(widgets.find(`${PARENT}/widgets/long`)?.['displayName']).toBe(long);
      return;
    }
    let refusal: unknown;
    try {
      write();
    } catch (err) {
      refusal = err;
    }
    expect(refusal).toBeInstanceOf(ApiError);
    expect((refusal as ApiError).status).toBe('INVALID_ARGUMENT');
    expect((refusal as ApiError).message).toMatch(/too long to index/);
    expect(widgets.find(`${PARENT}/widgets/long`)).toBeUndefined();
    expect(engine.log.head()).toBe(head);
    widgets.put({ name: `${PARENT}/widgets/short`, displayName: 'fine' });
    expect(engine.log.head()).toBe(head + 1);
  });

  it('in an update (whose write goes out with the commit) is refused the same way, alone in its savepoint', () => {
    const engine = new ResourceEngine(fresh());
    const widgets = engine.register(widgetDefinition);
    const long = randomBytes(6000).toString('base64');
    const names = ['wa', 'wb', 'wc'].map((id) => `${PARENT}/widgets/${id}`);
    for (const name of names) widgets.put({ name, displayName: 'short' });
    const refusals: unknown[] = [];
    engine.transaction(() => {
      for (const name of names) {
        try {
          engine.savepoint(() =>
            widgets.patch(name, (doc) => ({ ...doc, displayName: name.endsWith('b') ? long : 'new' })),
          );
        } catch (err) {
          refusals.push(err);
        }
      }
    });
    const stored = names.map((name) => widgets.find(name)?.['displayName']);
    if (kind === 'sqlite') {
      expect(refusals).toEqual([]);
      expect(stored).toEqual(['new', long, 'new']);
      return;
    }
    expect(refusals).toHaveLength(1);
    expect((refusals[0] as ApiError).status).toBe('INVALID_ARGUMENT');
    expect(stored).toEqual(['new', 'short', 'new']);
    expect(() => widgets.patch(names[0]!, (doc) => ({ ...doc, displayName: long }))).toThrow(/too long to index/);
    expect(widgets.find(names[0]!)?.['displayName']).toBe('new');
  });
});
