import { deviceDefinition } from '@outpost/shared';
import { expect, it } from 'vitest';
import { StatusWriter } from '../../src/gateway/status-writer.js';
import { ResourceEngine } from '../../src/resources/resource-engine.js';
import { describeStorages, type FreshStorage } from '../helpers/storages.js';

const NAMES = Array.from({ length: 50 }, (_, i) => `projects/p1/regions/eu/devices/d${i}`);

function setup(fresh: FreshStorage, devicesPerFlush: number) {
  const engine = new ResourceEngine(fresh());
  const devices = engine.register(deviceDefinition);
  for (const name of NAMES) devices.put({ name });
  const writer = new StatusWriter(devices, {
    flushDelayMs: 1,
    devicesPerFlush,
    onFlushFailed: (err) => {
      throw err;
    },
  });
  return { devices, writer };
}

const waitFor = async (done: () => boolean): Promise<void> => {
  // generous: a loaded machine runs timers late
  for (const deadline = Date.now() + 20_000; !done(); await new Promise((r) => setTimeout(r, 10))) {
    if (Date.now() > deadline) throw new Error('timed out');
  }
};

describeStorages('StatusWriter with a backlog', (fresh) => {
  it('writes at most devicesPerFlush devices per timed transaction, the rest on later turns, in order', async () => {
    const { devices, writer } = setup(fresh, 20);
    for (const name of NAMES) writer.connection(name, 'CONNECTED', '2026-01-01T00:00:00.000Z');
    writer.report(NAMES[0]!, { deviceInfo: { osVersion: '1.0.0' } });
    writer.report(NAMES[49]!, { deviceInfo: { osVersion: '1.0.0' } });
    await waitFor(() => writer.batches === 3);
    for (const name of NAMES) expect(devices.find(name)?.['status']).toMatchObject({ connectionStatus: 'CONNECTED' });
    for (const name of [NAMES[0]!, NAMES[49]!]) {
      expect(devices.find(name)?.['status']).toMatchObject({ deviceInfo: { osVersion: '1.0.0' } });
    }
    writer.flush();
    expect(writer.batches).toBe(3); // nothing was left
  });

  it('flush() still writes everything pending in one transaction', () => {
    const { devices, writer } = setup(fresh, 20);
    for (const name of NAMES) writer.connection(name, 'CONNECTED', '2026-01-01T00:00:00.000Z');
    expect(writer.flush()).toBe(true);
    expect(writer.batches).toBe(1);
    for (const name of NAMES) expect(devices.find(name)?.['status']).toMatchObject({ connectionStatus: 'CONNECTED' });
  });
});
