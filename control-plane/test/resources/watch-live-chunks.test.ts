import { expect, it } from 'vitest';
import { buildCollectionQuery } from '../../src/resources/collection-query.js';
import type { Change } from '../../src/resources/change-log.js';
import { ResourceEngine } from '../../src/resources/resource-engine.js';
import { liveChunks } from '../../src/resources/watch/stateless-watch.js';
import type { StatelessShape } from '../../src/resources/watch/stateless-shape.js';
import { describeStorages, type FreshStorage } from '../helpers/storages.js';
import { widgetDefinition } from '../helpers/widgets.js';

const parent = 'projects/chunks/regions/r1';

/** Six committed changes of widgets in `parent` (one of a widget the filter leaves out), as a live watcher's queue gets them. */
function changesAndShape(fresh: FreshStorage): { changes: (Change | undefined)[]; shape: StatelessShape } {
  const engine = new ResourceEngine(fresh());
  const widgets = engine.register(widgetDefinition);
  const changes: (Change | undefined)[] = [];
  widgets.subscribe((change) => changes.push(change));
  for (let i = 0; i < 4; i++) widgets.put({ name: `${parent}/widgets/w${i}`, spec: { size: i } });
  widgets.put({ name: `${parent}/widgets/big`, spec: { size: 9 } });
  widgets.put({ name: `${parent}/widgets/w4`, spec: { size: 4 } });
  const query = buildCollectionQuery(widgets, parent, 'spec.size < 9', undefined);
  return { changes, shape: { query, paths: undefined, key: 'widget' } };
}

const namesIn = (chunk: unknown[]): string[] =>
  chunk.map((message) => (message as { current: { widget: { name: string } } }).current.widget.name.slice(-2));

describeStorages('liveChunks: a stateless watcher sends a backlog chunk by chunk', (fresh) => {
  it('builds the messages of one chunk at a time and lets go of each change once its chunk is built', () => {
    const { changes, shape } = changesAndShape(fresh);
    expect(changes).toHaveLength(6);
    const chunks = liveChunks(shape, changes, 2);

    const first = chunks.next();
    expect(namesIn(first.value as unknown[])).toEqual(['w0', 'w1']);
    // only the first chunk's changes are built and released; the rest wait in the backlog as they were
    expect(changes.slice(0, 2)).toEqual([undefined, undefined]);
    expect(changes.slice(2).every((change) => change !== undefined)).toBe(true);

    const rest = [...chunks].map(namesIn);
    expect(rest).toEqual([['w2', 'w3'], ['w4']]); // the widget the filter leaves out makes no message
    expect(changes.every((change) => change === undefined)).toBe(true);
  });

  it('puts everything in one chunk when the size is 0, and yields nothing for changes without a message', () => {
    const { changes, shape } = changesAndShape(fresh);
    expect([...liveChunks(shape, changes.slice(), 0)].map(namesIn)).toEqual([['w0', 'w1', 'w2', 'w3', 'w4']]);
    expect([...liveChunks(shape, [changes[4]], 3)]).toEqual([]);
  });
});
