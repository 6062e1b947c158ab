import { describe, expect, it } from 'vitest';
import { deviceDefinition } from '@outpost/shared';
import type { Condition, DeviceStatus, ResourceDefinition } from '@outpost/shared';
import { listResources } from '../../src/resources/list-operation.js';
import { ResourceEngine } from '../../src/resources/resource-engine.js';
import type { ResourceHandle } from '../../src/resources/resource-handle.js';
import { describeStorages } from '../helpers/storages.js';

/**
 * Conditions are a list, which filters cannot address: the engine keeps `status.failingHealthCheckCount` equal to
 * how many `Healthy/<id>` conditions are False (absent without any), so that a filter lists the devices failing a
 * health check (the dashboard's overview count opens that list). Both derived fields are output only and filled in
 * for devices stored before them (the last block).
 */
const PARENT = 'projects/fleet/regions/eu';
const FAILING = 'status.failingHealthCheckCount > 0';

const condition = (type: string, status: 'True' | 'False' | 'Unknown'): Condition => ({
  type,
  status,
  reason: status === 'False' ? 'Failing' : 'Passing',
  message: '',
  lastTransitionTime: '2024-01-01T00:00:00.000Z',
});

const withChecks = (...statuses: ('True' | 'False' | 'Unknown')[]): DeviceStatus => ({
  conditions: [condition('OSReady', 'True'), ...statuses.map((status, i) => condition(`Healthy/check-${i}`, status))],
});

const names = (devices: ResourceHandle, filter: string): string[] =>
  listResources(devices, { parent: PARENT, filter }).items.map((d) => String(d['name']).split('/').pop() ?? '');

function createDevices(devices: ResourceHandle, ids: readonly string[]): void {
  for (const id of ids) devices.create({ parent: PARENT, resource: { name: `${PARENT}/devices/${id}` } });
}

const statusOf = (devices: ResourceHandle, id: string): unknown => devices.find(`${PARENT}/devices/${id}`)?.['status'];

describeStorages('the fields the engine derives for devices', (fresh) => {
  describe('status.failingHealthCheckCount', () => {
    it('counts the False Healthy/<id> conditions through patches and merges, absent without any check', () => {
      const engine = new ResourceEngine(fresh());
      const devices = engine.register(deviceDefinition);
      createDevices(devices, ['da', 'db', 'dc', 'dd']);
      devices.patch(`${PARENT}/devices/da`, (doc) => ({ ...doc, status: withChecks('False', 'True', 'False') }));
      devices.patchAll([
        [`${PARENT}/devices/db`, (doc) => ({ ...doc, status: withChecks('True', 'Unknown') })],
        [`${PARENT}/devices/dc`, (doc) => ({ ...doc, status: { conditions: [condition('OSReady', 'True')] } })],
      ]);
      const d = devices.table.findMany([`${PARENT}/devices/dd`]).get(`${PARENT}/devices/dd`)!;
      devices.mergeRows([[d, { status: withChecks('False') }]]);

      expect(names(devices, FAILING)).toEqual(['da', 'dd']);
      expect(statusOf(devices, 'da')).toMatchObject({ failingHealthCheckCount: 2 });
      expect(names(devices, 'status.failingHealthCheckCount = 0')).toEqual(['db']);
      expect(statusOf(devices, 'dc')).not.toHaveProperty('failingHealthCheckCount');
      expect(names(devices, 'status.failingHealthCheckCount IS NULL')).toEqual(['dc']);

      // the checks pass again, or go away: the count follows
      devices.patch(`${PARENT}/devices/da`, (doc) => ({ ...doc, status: withChecks('True', 'True', 'True') }));
      devices.patch(`${PARENT}/devices/dd`, (doc) => ({ ...doc, status: {} }));
      expect(names(devices, FAILING)).toEqual([]);
      expect(statusOf(devices, 'dd')).not.toHaveProperty('failingHealthCheckCount');
    });
  });

  /**
   * What holds for every field the engine derives for devices (status.osReadyReason and
   * status.failingHealthCheckCount): only the engine writes it, and devices stored before it existed get it when the
   * table is opened.
   */
  describe.each([
    {
      path: 'status.osReadyReason',
      written: 'Failed',
      status: { conditions: [{ ...condition('OSReady', 'False'), reason: 'RolledBack' }] },
      filter: 'status.osReadyReason = "RolledBack"',
      derived: { osReadyReason: 'RolledBack' },
    },
    {
      path: 'status.failingHealthCheckCount',
      written: 3,
      status: withChecks('False'),
      filter: FAILING,
      derived: { failingHealthCheckCount: 1 },
    },
  ])('the derived field $path', ({ path, written, status, filter, derived }) => {
    const member = path.split('.')[1]!;

    it('is output only: a user cannot write it', () => {
      const engine = new ResourceEngine(fresh());
      const devices = engine.register(deviceDefinition);
      createDevices(devices, ['da']);
      expect(() =>
        devices.update({
          name: `${PARENT}/devices/da`,
          resource: { status: { [member]: written } },
          updateMask: path,
        }),
      ).toThrow(/output only/);
      expect(names(devices, filter)).toEqual([]);
    });

    it('is filled in for devices stored before it existed', () => {
      const storage = fresh();
      const before: ResourceDefinition = {
        ...deviceDefinition,
        filterSchema: { fields: deviceDefinition.filterSchema.fields.filter((f) => f.path !== path) },
        derive: undefined,
      };
      const old = new ResourceEngine(storage).register(before);
      createDevices(old, ['da', 'db']);
      old.patch(`${PARENT}/devices/da`, (doc) => ({ ...doc, status }));
      expect(statusOf(old, 'da')).not.toHaveProperty(member);

      const devices = new ResourceEngine(storage).register(deviceDefinition);
      expect(names(devices, filter)).toEqual(['da']);
      expect(statusOf(devices, 'da')).toMatchObject(derived);
    });
  });
});
