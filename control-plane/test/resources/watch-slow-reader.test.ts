import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPausedWatch } from '../helpers/paused-watch.js';
import { startTestServer, TEST_ADMIN_KEY } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { widgetDefinition } from '../helpers/widgets.js';

const PARENT = 'projects/slow/regions/r1';
const WIDGET = `${PARENT}/widgets/big`;
/** large enough that a few changes fill the socket and each line makes the server wait for `drain` */
const PADDING = 'x'.repeat(64 * 1024);

const sizeOf = (message: Record<string, unknown>): number | undefined => {
  const changes = (message['widgetChanges'] ?? []) as { current?: { widget?: { spec?: { size?: number } } } }[];
  return changes.map((c) => c.current?.widget?.spec?.size).findLast((size) => size !== undefined);
};

describe('a watch stream whose reader falls behind', () => {
  let server: TestServer;
  const warnings: Error[] = [];
  const onWarning = (warning: Error): void => void warnings.push(warning);
  beforeAll(async () => {
    process.on('warning', onWarning);
    server = await startTestServer(
      { resources: [{ def: widgetDefinition }] },
      { config: { watchStreamMaxBytes: 512 * 1024 } },
    );
  });
  afterAll(async () => {
    process.off('warning', onWarning);
    await server.dispose();
  });

  it('waits for the socket to drain many times, is reset many times, and adds no listener each time', async () => {
    const widgets = server.engine.resource('widgets');
    widgets.put({ name: WIDGET, displayName: PADDING, spec: { size: 0 } });
    const watch = await openPausedWatch(`${server.url}/v1/${PARENT}/widgets:watch`, TEST_ADMIN_KEY, {
      type: 'STATELESS',
    });
    expect(watch.status).toBe(200);
    await watch.readUntil((m) => m['isCurrent'] === true);

    const CHANGES = 400;
    let softResets = 0;
    let lastSeen = 0;
    for (let size = 1; size <= CHANGES; size++) {
      widgets.put({ name: WIDGET, displayName: PADDING, spec: { size } });
      if (size % 20 === 0) {
        // the reader takes a little now and then: the server waits for drain, then is overtaken again
        await sleep(5);
        const read = await watch.readUntil(() => true);
        softResets += read.filter((m) => m['isSoftReset'] === true).length;
      }
    }
    const rest = await watch.readUntil((m) => {
      if (m['isSoftReset'] === true) softResets++;
      lastSeen = sizeOf(m) ?? lastSeen;
      return lastSeen === CHANGES && m['isCurrent'] === true;
    });
    watch.close();
    expect(rest.length).toBeGreaterThan(0);
    expect(lastSeen).toBe(CHANGES);
    expect(softResets).toBeGreaterThan(5);
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map((w) => w.message)).toEqual([]);
  });
});
