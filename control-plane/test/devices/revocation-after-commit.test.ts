/**
 * Issue 23: a device credential revoked inside a transaction (the device is deleted, or provisioned again) is
 * told to the revocation listeners, which announce it to the other replicas, only once the transaction has
 * committed, and never when it rolls back. Checked against a second engine on the same PostgreSQL database,
 * standing for another replica: when told, it no longer accepts the credential.
 */
import { describe, expect, it } from 'vitest';
import { createDeviceService } from '../../src/devices/device-service.js';
import { hashSecret } from '../../src/devices/secret-hash.js';
import { ResourceEngine } from '../../src/resources/resource-engine.js';
import { postgresSuiteSkipped, suitePostgres } from '../helpers/suite-postgres.js';

const PARENT = 'projects/revoking/regions/eu';
const DEVICE = `${PARENT}/devices/d1`;
const TITLE = 'revocations are told after their commit';

describe.skipIf(postgresSuiteSkipped(TITLE))(TITLE, () => {
  const postgres = suitePostgres();

  const twoReplicas = (): {
    service: ReturnType<typeof createDeviceService>;
    engine: ResourceEngine;
    acceptedElsewhere: (secret: string) => boolean;
  } => {
    const url = postgres.createDatabase();
    const engine = new ResourceEngine(postgres.open(url));
    const service = createDeviceService(engine);
    const other = new ResourceEngine(postgres.open(url)).stores.deviceCredentials;
    return { service, engine, acceptedElsewhere: (secret) => other.deviceOfSecret(hashSecret(secret)) === DEVICE };
  };

  it('deleting a device revokes its credential, and the listeners hear of it once another replica refuses it', () => {
    const { service, acceptedElsewhere } = twoReplicas();
    service.devices.create({ parent: PARENT, resource: { name: DEVICE } }, { system: true });
    const secret = service.credentials.issue(DEVICE);
    expect(acceptedElsewhere(secret)).toBe(true);
    const told: boolean[] = [];
    service.credentials.onRevoked(() => told.push(acceptedElsewhere(secret)));
    service.devices.delete({ name: DEVICE });
    expect(told).toEqual([false]);
  });

  it('a revocation in a transaction that rolls back is never told, and the credential goes on working', () => {
    const { service, engine, acceptedElsewhere } = twoReplicas();
    service.devices.create({ parent: PARENT, resource: { name: DEVICE } }, { system: true });
    const secret = service.credentials.issue(DEVICE);
    const told: string[] = [];
    service.credentials.onRevoked((device) => told.push(device));
    expect(() =>
      engine.transaction(() => {
        service.devices.delete({ name: DEVICE });
        throw new Error('undone');
      }),
    ).toThrow('undone');
    expect(told).toEqual([]);
    expect(acceptedElsewhere(secret)).toBe(true);
  });
});
