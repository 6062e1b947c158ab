import { describe, expect, it } from 'vitest';
import { createDeviceService } from '../../src/devices/device-service.js';
import { StatusWriter } from '../../src/gateway/status-writer.js';
import { ResourceEngine } from '../../src/resources/resource-engine.js';
import { REWRITTEN_TOGETHER_FILLFACTOR } from '../../src/resources/storage/postgres/pg-table.js';
import { settledTableStats } from '../helpers/pg-table-stats.js';
import { postgresSuiteSkipped, suitePostgres } from '../helpers/suite-postgres.js';

/**
 * The status writer rewrites many devices in one transaction. On PostgreSQL the devices table keeps room for a
 * new version of every row on its page, so a flush's reports (no indexed field moves) are all heap-only: no index
 * entry is written, not only for the first few devices of each page. The head-row lock makes the replicas'
 * flushes run one at a time, so their cost is the cluster's.
 */
const TITLE = 'devices on PostgreSQL: a status flush is heap-only';
const PARENT = 'projects/p1/regions/eu';
const DEVICES = 300;

describe.skipIf(postgresSuiteSkipped(TITLE))(TITLE, () => {
  const postgres = suitePostgres();

  it('writes a flush of every device without an index entry', async () => {
    const url = postgres.createDatabase();
    const storage = postgres.open(url);
    const engine = new ResourceEngine(storage);
    const { devices } = createDeviceService(engine);
    const names = Array.from({ length: DEVICES }, (_, i) => `${PARENT}/devices/d${String(i).padStart(4, '0')}`);
    engine.transaction(() => {
      for (const name of names) devices.put({ name });
    });
    const options = storage.query("SELECT reloptions FROM pg_class WHERE oid = to_regclass('r_devices')").rows[0];
    expect(options?.[0]).toContain(`fillfactor=${REWRITTEN_TOGETHER_FILLFACTOR}`);
    const writer = new StatusWriter(devices, {
      flushDelayMs: 60_000,
      onFlushFailed: (err) => {
        throw err;
      },
    });
    // (updates, heap-only updates) once PostgreSQL's statistics count `atLeast` updates
    const settled = (atLeast: number): Promise<number[]> =>
      settledTableStats(url, 'r_devices', ['n_tup_upd', 'n_tup_hot_upd'], ([updated]) => updated! >= atLeast);
    const [updated0, heapOnly0] = await settled(0);

    for (let round = 1; round <= 2; round++) {
      for (const name of names) {
        writer.report(name, { deviceInfo: { hardwareInformation: { memory: { totalBytes: round * 4096 } } } });
      }
      expect(writer.flush()).toBe(true);
    }
    const [updated, heapOnly] = await settled(updated0! + 2 * DEVICES);
    expect({ updated: updated! - updated0!, heapOnly: heapOnly! - heapOnly0! }).toEqual({
      updated: 2 * DEVICES,
      heapOnly: 2 * DEVICES,
    });
    expect(devices.find(names[7]!)?.status?.deviceInfo?.hardwareInformation?.memory?.totalBytes).toBe(8192);
  });
});
