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
  const writer = new StatusWriter(devices, 60_000);
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
});
