import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../../../src/resources/storage/sqlite/open-database.js';
import { startWalCheckpointer } from '../../../../src/resources/storage/sqlite/wal-checkpointer.js';
import { ResourceEngine } from '../../../../src/resources/resource-engine.js';
import { tempDatabases } from '../../../helpers/temp-databases.js';
import { widgetDefinition } from '../../../helpers/widgets.js';

/**
 * A transaction that writes thousands of resources leaves its checkpoint to a worker thread: the commit
 * itself does not checkpoint, the worker does afterwards, and then commits checkpoint as usual again.
 */
const freshDatabase = tempDatabases('outpost-checkpointer-');

const PARENT = 'projects/p1/regions/eu';

function setUp() {
  const { db, file } = freshDatabase();
  const errors: string[] = [];
  const checkpointer = startWalCheckpointer(db, file, (message) => errors.push(message));
  const engine = new ResourceEngine(db, { checkpoints: checkpointer });
  const widgets = engine.register(widgetDefinition);
  const createMany = (prefix: string, count: number): void => {
    for (let i = 0; i < count; i++)
      widgets.create({ parent: PARENT, resource: { name: `${PARENT}/widgets/${prefix}-${i}` } });
  };
  const autoCheckpoint = (): unknown => db.pragma('wal_autocheckpoint', { simple: true });
  return { file, db, engine, widgets, checkpointer, errors, createMany, autoCheckpoint };
}

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('WAL checkpointer', () => {
  it('checkpoints a large transaction in the worker, then hands checkpoints back to the commits', async () => {
    const { db, engine, widgets, checkpointer, errors, createMany, autoCheckpoint } = setUp();
    createMany('small', 10);
    expect(autoCheckpoint()).toBe(1000);
    engine.transaction(() => createMany('large', 2500));
    expect(checkpointer.finished()).toBe(0);
    await until(() => checkpointer.finished() === 1);
    expect(autoCheckpoint()).toBe(1000);
    const [state] = db.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
    expect(state).toMatchObject({ busy: 0 });
    expect(state?.checkpointed).toBe(state?.log);
    expect(widgets.exists(`${PARENT}/widgets/large-2499`)).toBe(true);
    expect(db.pragma('quick_check', { simple: true })).toBe('ok');
    await checkpointer.stop();
    db.close();
    expect(errors).toEqual([]);
  });

  it('leaves small and rolled-back transactions to the commits', async () => {
    const { db, engine, checkpointer, createMany, autoCheckpoint } = setUp();
    for (let i = 0; i < 20; i++) engine.transaction(() => createMany(`batch-${i}`, 50));
    expect(() =>
      engine.transaction(() => {
        createMany('undone', 2500);
        throw new Error('refused');
      }),
    ).toThrow('refused');
    expect(autoCheckpoint()).toBe(1000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(checkpointer.finished()).toBe(0);
    await checkpointer.stop();
    db.close();
  });

  it('loses nothing when stopped while the worker may still be checkpointing', async () => {
    const { file, db, engine, checkpointer, createMany } = setUp();
    engine.transaction(() => createMany('kept', 2500));
    await checkpointer.stop();
    db.close();
    const reopened = openDatabase(file);
    const engineAgain = new ResourceEngine(reopened);
    const widgets = engineAgain.register(widgetDefinition);
    expect(widgets.exists(`${PARENT}/widgets/kept-2499`)).toBe(true);
    expect(reopened.pragma('integrity_check', { simple: true })).toBe('ok');
    reopened.close();
  });
});
