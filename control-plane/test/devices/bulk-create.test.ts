/**
 * The engine's bulk create (ResourceHandle.createMany) with the devices service's credentials in bulk
 * (DeviceCredentials.issueMany): many devices in one transaction, each through every rule a single create
 * runs (validation, the devices service's own rules, the limits service's metering), all or nothing.
 */
import { ApiError } from '@outpost/shared';
import type { Device } from '@outpost/shared';
import { expect, it } from 'vitest';
import { createDeviceService } from '../../src/devices/device-service.js';
import { createLimitsService } from '../../src/limits/index.js';
import type { Change } from '../../src/resources/change-log.js';
import type { CreateRequest } from '../../src/resources/requests.js';
import { ResourceEngine } from '../../src/resources/resource-engine.js';
import { PgStorage } from '../../src/resources/storage/postgres/pg-storage.js';
import { describeStorages } from '../helpers/storages.js';
import { DEVICES, limitName, PROJECT_PLAN } from '../limits/limits-fixture.js';

const PARENT = 'projects/bulk/regions/r1';
const COUNT = 300;
const nameOf = (i: number): string => `${PARENT}/devices/d-${String(i).padStart(4, '0')}`;
const createsOf = (names: readonly string[]): CreateRequest[] =>
  names.map((name) => ({ parent: PARENT, resource: { name } }));

/** The refusal `fn` throws (fails the test when it throws none). */
function refusal(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

describeStorages('creating devices in bulk', (fresh, kind) => {
  const open = () => {
    const storage = fresh();
    const engine = new ResourceEngine(storage);
    return { storage, engine, ...createDeviceService(engine) };
  };

  it('creates every device with its credential, one change each in order, seen by a watcher after the commit', () => {
    const { engine, devices, credentials } = open();
    const names = Array.from({ length: COUNT }, (_, i) => nameOf(i));
    const seen: Change<Device>[] = [];
    devices.subscribe((change) => seen.push(change));
    const head = engine.log.head();

    const secrets = engine.transaction(() => {
      devices.createMany(createsOf(names), { system: true });
      expect(seen).toEqual([]); // nothing is published before the commit
      return credentials.issueMany(names);
    });

    expect(devices.names()).toEqual(names);
    // the devices service's own rule ran for each
    expect(devices.find(nameOf(7))?.status?.connectionStatus).toBe('DISCONNECTED');
    expect(secrets.map((secret) => credentials.deviceOf(secret))).toEqual(names);
    const logged = engine.log.read('devices', head, COUNT + 1);
    expect(logged.map((change) => change.name)).toEqual(names);
    expect(logged.map((change) => change.seq)).toEqual(names.map((_, i) => head + 1 + i));
    expect(seen.map((change) => [change.seq, change.name, change.op])).toEqual(
      names.map((name, i) => [head + 1 + i, name, 'put']),
    );
    expect(engine.log.head()).toBe(head + COUNT);
  });

  it('refuses the whole batch for one bad device, a name taken, or a name given twice, changing nothing', () => {
    const { engine, devices, credentials } = open();
    devices.createMany(createsOf([nameOf(0), nameOf(1)]), { system: true });
    const head = engine.log.head();
    const names = Array.from({ length: 50 }, (_, i) => nameOf(i + 10));
    const attempt = (requests: CreateRequest[]) =>
      refusal(() =>
        engine.transaction(() => {
          devices.createMany(requests, { system: true });
          credentials.issueMany(names);
        }),
      );

    const invalid = createsOf(names);
    invalid[37] = { parent: PARENT, resource: { name: nameOf(47), spec: { osVersion: 42 } } };
    expect(attempt(invalid).status).toBe('INVALID_ARGUMENT');
    const taken = attempt([...createsOf(names), ...createsOf([nameOf(1)])]);
    expect([taken.status, taken.message]).toEqual(['ALREADY_EXISTS', `device "${nameOf(1)}" already exists`]);
    const twice = attempt([...createsOf(names), ...createsOf([nameOf(12)])]);
    expect([twice.status, twice.message]).toEqual([
      'INVALID_ARGUMENT',
      `device "${nameOf(12)}" is created twice in one batch`,
    ]);
    const elsewhere = attempt([
      ...createsOf(names),
      { parent: PARENT, resource: { name: 'projects/x/regions/r1/devices/d' } },
    ]);
    expect(elsewhere.status).toBe('INVALID_ARGUMENT');

    expect(devices.names()).toEqual([nameOf(0), nameOf(1)]);
    expect(engine.log.head()).toBe(head);
    // the batch after a refused one starts clean
    devices.createMany(createsOf(names), { system: true });
    expect(devices.count({})).toBe(52);
  });

  it('takes each device from its project limit, refusing a batch beyond it whole', () => {
    const storage = fresh();
    const engine = new ResourceEngine(storage);
    const limits = createLimitsService(engine);
    const { devices } = createDeviceService(engine, { meteredBy: limits });
    limits.bootstrap();
    const h = limits.handles;
    h.projects.create({ parent: '', resource: { name: 'projects/bulk', regions: ['r1'] } });
    h.plans.update({
      resource: { name: PROJECT_PLAN, resourceLimits: [{ resource: DEVICES, value: 5 }] },
      updateMask: 'resourceLimits',
    });
    const usage = () => (h.limits.find(limitName('projects/bulk', 'r1')) as { usage: number }).usage;

    devices.createMany(createsOf([nameOf(0), nameOf(1)]));
    expect(usage()).toBe(2);
    const beyond = refusal(() => devices.createMany(createsOf([nameOf(2), nameOf(3), nameOf(4), nameOf(5)])));
    expect(beyond.status).toBe('RESOURCE_EXHAUSTED');
    expect([usage(), devices.count({})]).toEqual([2, 2]);
    devices.createMany(createsOf([nameOf(2), nameOf(3), nameOf(4)]));
    expect([usage(), devices.count({})]).toEqual([5, 5]);
  });

  it.runIf(kind === 'postgres')('costs a few round trips per batch on PostgreSQL, not one per device', () => {
    const { storage, engine, devices, credentials } = open();
    if (!(storage instanceof PgStorage)) throw new Error('expected PostgreSQL');
    const names = Array.from({ length: COUNT }, (_, i) => nameOf(i));
    const before = storage.roundTrips;
    engine.transaction(() => {
      devices.createMany(createsOf(names), { system: true });
      credentials.issueMany(names);
    });
    // the log head, the names' look, the row ids reserved (200 at a time), the commit
    expect(storage.roundTrips - before).toBeLessThanOrEqual(5);
    expect(devices.count({})).toBe(COUNT);
  });
});
