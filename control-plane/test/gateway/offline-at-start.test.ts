import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Device } from '@outpost/shared';
import { testDatabase } from '../helpers/test-database.js';
import { startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

/**
 * After a crash no agent link survives: a control plane that starts on a store where devices are still
 * CONNECTED marks them DISCONNECTED before it serves (the gateway asks the engine which are connected).
 */
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function started(dataDir: string, database: { database?: string }): Promise<TestServer> {
  const server = await startTestServer({}, { dataDir, config: database });
  cleanups.push(() => server.dispose());
  return server;
}

describe('a control plane starting after a crash', () => {
  it('marks every device the store still holds as connected DISCONNECTED, and leaves the others alone', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'outpost-offline-at-start-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const database = testDatabase();
    const parent = 'projects/p1/regions/eu';
    const first = await started(dataDir, database);
    for (const id of ['d1', 'd2']) await first.admin.create(parent, 'devices', { name: `${parent}/devices/${id}` });
    // as a crash leaves it: the link of d1 was up when the process died
    first.engine.resource('devices').patch(`${parent}/devices/d1`, (doc) => ({
      ...doc,
      status: { ...(doc['status'] as object), connectionStatus: 'CONNECTED' },
    }));
    await first.close();

    const second = await started(dataDir, database);
    const d1 = await second.admin.get<Device>(`${parent}/devices/d1`);
    const d2 = await second.admin.get<Device>(`${parent}/devices/d2`);
    expect(d1.status?.connectionStatus).toBe('DISCONNECTED');
    expect(d2.status?.connectionStatus).not.toBe('CONNECTED');
  });
});
