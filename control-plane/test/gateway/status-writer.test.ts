import { deviceDefinition } from '@outpost/shared';
import { describe, expect, it } from 'vitest';
import { StatusWriter } from '../../src/gateway/status-writer.js';
import { ResourceEngine } from '../../src/resources/resource-engine.js';
import { tempDatabases } from '../helpers/temp-databases.js';

const freshDatabase = tempDatabases('outpost-status-writer-');

const DEVICE = 'projects/p1/regions/eu/devices/d1';

/** A writer over a real devices table, and the device states watchers were shown, in order. */
function setup() {
  const engine = new ResourceEngine(freshDatabase().db);
  const devices = engine.register(deviceDefinition);
  devices.put({ name: DEVICE });
  const seen: { connection: unknown; osVersion: unknown }[] = [];
  devices.subscribe((change) => {
    const status = (change.after?.['status'] ?? {}) as Record<string, Record<string, unknown> | undefined>;
    seen.push({ connection: status['connectionStatus'], osVersion: status['deviceInfo']?.['osVersion'] });
  });
  // flushed by hand: no timer runs in these tests
  const writer = new StatusWriter(devices, {
    flushDelayMs: 60_000,
    onFlushFailed: (err) => {
      throw err;
    },
  });
  return { devices, writer, seen };
}

describe('StatusWriter', () => {
  it('shows a connection that came and went within one flush as two changes, CONNECTED then DISCONNECTED', () => {
    const { devices, writer, seen } = setup();
    writer.connection(DEVICE, 'CONNECTED', '2026-01-01T00:00:00.000Z');
    writer.report(DEVICE, { deviceInfo: { osVersion: '1.0.0' } });
    writer.connection(DEVICE, 'DISCONNECTED', '2026-01-01T00:00:01.000Z');
    writer.flush();
    expect(seen).toEqual([
      { connection: 'CONNECTED', osVersion: undefined },
      { connection: 'DISCONNECTED', osVersion: '1.0.0' },
    ]);
    expect(devices.find(DEVICE)?.['status']).toMatchObject({
      connectionStatus: 'DISCONNECTED',
      connectionStatusChangeTime: '2026-01-01T00:00:01.000Z',
      deviceInfo: { osVersion: '1.0.0' },
    });
    expect(writer.batches).toBe(1);
  });

  it("writes a link's CONNECTED and its hello's CONNECTED right behind it as one change", () => {
    const { devices, writer, seen } = setup();
    writer.connection(DEVICE, 'CONNECTED', '2026-01-01T00:00:00.000Z');
    writer.connection(DEVICE, 'CONNECTED', '2026-01-01T00:00:00.001Z', { version: '1.0.0' });
    writer.report(DEVICE, { deviceInfo: { osVersion: '1.0.0' } });
    writer.connection(DEVICE, 'CONNECTED', '2026-01-01T00:00:00.002Z', { version: '1.0.1' });
    writer.flush();
    expect(seen).toEqual([
      { connection: 'CONNECTED', osVersion: undefined },
      { connection: 'CONNECTED', osVersion: '1.0.0' },
    ]);
    expect(devices.find(DEVICE)?.['status']).toMatchObject({
      connectionStatusChangeTime: '2026-01-01T00:00:00.000Z',
      agent: { version: '1.0.1' },
    });
  });

  it('merges the reports between connection changes into one write, in arrival order', () => {
    const { writer, seen } = setup();
    writer.report(DEVICE, { deviceInfo: { osVersion: '1.0.0' } });
    writer.report(DEVICE, { deviceInfo: { osVersion: '1.1.0' } });
    writer.connection(DEVICE, 'CONNECTED', '2026-01-01T00:00:00.000Z');
    writer.report(DEVICE, { deviceInfo: { osVersion: '1.2.0' } });
    writer.report(DEVICE, { deviceInfo: { osVersion: '1.3.0' } });
    writer.flush();
    expect(seen).toEqual([
      { connection: 'CONNECTED', osVersion: '1.1.0' },
      { connection: 'CONNECTED', osVersion: '1.3.0' },
    ]);
    writer.flush(); // nothing pending: nothing written
    expect(seen).toHaveLength(2);
  });

  it('writes now what is pending for the named devices only, leaving the others to the next flush', () => {
    const { devices, writer } = setup();
    const other = 'projects/p1/regions/eu/devices/d2';
    devices.put({ name: other });
    writer.connection(DEVICE, 'CONNECTED', '2026-01-01T00:00:00.000Z');
    writer.report(DEVICE, { deviceInfo: { osVersion: '1.0.0' } });
    writer.connection(other, 'CONNECTED', '2026-01-01T00:00:00.000Z');
    expect(writer.flushDevices([DEVICE, 'projects/p1/regions/eu/devices/never-seen'])).toBe(true);
    expect(devices.find(DEVICE)?.['status']).toMatchObject({ deviceInfo: { osVersion: '1.0.0' } });
    expect(devices.find(other)?.['status']).toBeUndefined();
    expect(writer.flushDevices([DEVICE])).toBe(true); // nothing pending for it: nothing written
    expect(writer.batches).toBe(1);
    writer.flush();
    expect(devices.find(other)?.['status']).toMatchObject({ connectionStatus: 'CONNECTED' });
  });
});

describe('StatusWriter on a full disk', () => {
  const NAMES = Array.from({ length: 50 }, (_, i) => `projects/p1/regions/eu/devices/d${i}`);
  /** agent info large enough that writing it for every device needs new database pages */
  const AGENT = { version: '1.0.0', notes: 'x'.repeat(5000) };

  function fullDiskSetup() {
    const { db } = freshDatabase();
    const engine = new ResourceEngine(db);
    const devices = engine.register(deviceDefinition);
    for (const name of NAMES) devices.put({ name });
    const failures: { err: unknown; retryInMs: number }[] = [];
    const writer = new StatusWriter(devices, {
      flushDelayMs: 1,
      onFlushFailed: (err, retryInMs) => failures.push({ err, retryInMs }),
    });
    // the database may not grow by a page: SQLITE_FULL, as on a full disk
    const fill = () => db.pragma(`max_page_count = ${Number(db.pragma('page_count', { simple: true }))}`);
    const free = () => db.pragma('max_page_count = 1073741823');
    return { devices, writer, failures, fill, free };
  }

  const waitFor = async (done: () => boolean, ms: number): Promise<void> => {
    for (const deadline = Date.now() + ms; !done(); await new Promise((r) => setTimeout(r, 20))) {
      if (Date.now() > deadline) throw new Error('timed out');
    }
  };

  it('never throws from its timer, keeps the edits, and writes them in order once space is freed', async () => {
    const { devices, writer, failures, fill, free } = fullDiskSetup();
    fill();
    for (const name of NAMES) writer.connection(name, 'CONNECTED', '2026-01-01T00:00:00.000Z', AGENT);
    await waitFor(() => failures.length > 0, 20_000); // the timer's write failed, and nothing was thrown
    expect(failures[0]).toMatchObject({ err: { code: 'SQLITE_FULL' }, retryInMs: 1000 });
    expect(devices.find(NAMES[0]!)?.['status']).toBeUndefined();
    writer.report(NAMES[0]!, { deviceInfo: { osVersion: '2.0.0' } }); // arrives while the write waits
    free();
    // the retry is due 1 s after the failure; a loaded machine may run it late
    await waitFor(() => devices.find(NAMES[49]!)?.['status'] !== undefined, 20_000);
    for (const name of NAMES) expect(devices.find(name)?.['status']).toMatchObject({ connectionStatus: 'CONNECTED' });
    expect(devices.find(NAMES[0]!)?.['status']).toMatchObject({ deviceInfo: { osVersion: '2.0.0' } });
    expect(failures).toHaveLength(1);
  });

  it('doubles the wait between tries while writes keep failing, and schedules none after close', async () => {
    const { writer, failures, fill } = fullDiskSetup();
    fill();
    for (const name of NAMES) writer.connection(name, 'CONNECTED', '2026-01-01T00:00:00.000Z', AGENT);
    expect(writer.flush()).toBe(false);
    expect(writer.flush()).toBe(false);
    expect(writer.close()).toBe(false);
    expect(failures.map((f) => f.retryInMs)).toEqual([1000, 2000, 4000]);
    await new Promise((r) => setTimeout(r, 1200));
    expect(failures).toHaveLength(3); // closed: no retry ran
  });

  it('keeps the edits of named devices whose write failed, in front of those that came after', () => {
    const { devices, writer, failures, fill, free } = fullDiskSetup();
    fill();
    writer.connection(NAMES[0]!, 'CONNECTED', '2026-01-01T00:00:00.000Z', AGENT);
    expect(writer.flushDevices([NAMES[0]!])).toBe(false);
    expect(failures).toHaveLength(1);
    writer.report(NAMES[0]!, { deviceInfo: { osVersion: '2.0.0' } });
    free();
    expect(writer.close()).toBe(true);
    expect(devices.find(NAMES[0]!)?.['status']).toMatchObject({
      connectionStatus: 'CONNECTED',
      deviceInfo: { osVersion: '2.0.0' },
    });
  });
});
