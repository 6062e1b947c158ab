import { expect, it } from 'vitest';
import { deviceDefinition } from '@outpost/shared';
import { listResources } from '../../src/resources/list-operation.js';
import { ResourceEngine } from '../../src/resources/resource-engine.js';
import type { ResourceHandle } from '../../src/resources/resource-handle.js';
import type { Doc } from '../../src/resources/resource-table.js';
import { describeStorages } from '../helpers/storages.js';

/**
 * Conditions are a list, which filters cannot address: the engine keeps `status.osReadyReason` equal to the
 * reason of the OSReady condition on every kind of write, so that one filter lists the devices that rolled back
 * or failed (that it is output only and filled in for devices stored before it: failing-health-checks.test.ts).
 */
const PARENT = 'projects/fleet/regions/eu';
const FAILED = 'status.osReadyReason IN ("RolledBack", "Failed")';

const osReady = (reason: string): Doc => ({
  conditions: [
    {
      type: 'Healthy/web',
      status: 'True',
      reason: 'Passing',
      message: '',
      lastTransitionTime: '2024-01-01T00:00:00.000Z',
    },
    {
      type: 'OSReady',
      status: reason === 'Converged' ? 'True' : 'False',
      reason,
      message: `${reason} message`,
      lastTransitionTime: '2024-01-01T00:00:00.000Z',
    },
  ],
});

const names = (devices: ResourceHandle, filter: string): string[] =>
  listResources(devices, { parent: PARENT, filter }).items.map((d) => String(d['name']).split('/').pop() ?? '');

function createDevices(devices: ResourceHandle, ids: readonly string[]): void {
  for (const id of ids) devices.create({ parent: PARENT, resource: { name: `${PARENT}/devices/${id}` } });
}

describeStorages('status.osReadyReason', (fresh) => {
  it('follows the OSReady condition through system patches, batched patches and merges', () => {
    const engine = new ResourceEngine(fresh());
    const devices = engine.register(deviceDefinition);
    createDevices(devices, ['da', 'db', 'dc', 'dd']);
    devices.patch(`${PARENT}/devices/da`, (doc) => ({ ...doc, status: osReady('RolledBack') }));
    devices.patchAll([
      [`${PARENT}/devices/db`, (doc) => ({ ...doc, status: osReady('Failed') })],
      [`${PARENT}/devices/dc`, (doc) => ({ ...doc, status: osReady('Downloading') })],
    ]);
    const d = devices.table.findMany([`${PARENT}/devices/dd`]).get(`${PARENT}/devices/dd`)!;
    devices.mergeRows([[d, { status: osReady('RolledBack') }]]);

    expect(names(devices, FAILED)).toEqual(['da', 'db', 'dd']);
    expect(devices.find(`${PARENT}/devices/da`)?.['status']).toMatchObject({ osReadyReason: 'RolledBack' });

    // the device converges: the reason follows, and a device without OSReady has none
    devices.patch(`${PARENT}/devices/da`, (doc) => ({ ...doc, status: osReady('Converged') }));
    devices.patch(`${PARENT}/devices/db`, (doc) => ({ ...doc, status: {} }));
    expect(names(devices, FAILED)).toEqual(['dd']);
    expect(names(devices, 'status.osReadyReason = "Converged"')).toEqual(['da']);
    expect(devices.find(`${PARENT}/devices/db`)?.['status']).not.toHaveProperty('osReadyReason');
  });
});
