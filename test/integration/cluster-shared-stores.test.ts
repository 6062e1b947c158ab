/**
 * Issue 22: API keys, provisioning tokens and device credentials live in the engine's store, so two
 * control-plane replicas on one PostgreSQL share them (before, each kept its own in a SQLite file of its data
 * folder: a key made through one replica was unknown to the other). Skipped without PostgreSQL, except under
 * CI=true.
 */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TEST_ADMIN_KEY } from '../../control-plane/test/helpers/test-server.js';
import { clusterTestsSkipped } from './helpers/cluster-replicas.js';
import { twoReplicasOnePostgres } from './helpers/two-replicas.js';
import type { Replica } from './helpers/cluster-replicas.js';

const skipped = clusterTestsSkipped('shared stores test');
const PARENT = 'projects/shared/regions/eu';

const call = (replica: Replica, method: string, path: string, body?: unknown, secret = TEST_ADMIN_KEY) =>
  fetch(`${replica.url}/v1/${path}`, {
    method,
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

describe.skipIf(skipped)('the services’ stores across control-plane replicas on one PostgreSQL', () => {
  const replicas = twoReplicasOnePostgres();

  it('an API key made through one replica authenticates on the other, until revoked there', async () => {
    const [a, b] = [replicas.a(), replicas.b()];
    const made = await call(a, 'POST', 'apiKeys', {
      displayName: 'shared reader',
      grants: [{ permission: 'services/devices.outpost/permissions/devices.get', scope: '*' }],
    });
    expect(made.status).toBe(200);
    const { apiKey, secret } = (await made.json()) as { apiKey: { name: string }; secret: string };
    // authenticated and allowed: the device is simply not there
    expect((await call(b, 'GET', `${PARENT}/devices/none`, undefined, secret)).status).toBe(404);
    expect((await call(b, 'DELETE', apiKey.name)).status).toBe(200);
    expect((await call(a, 'GET', `${PARENT}/devices/none`, undefined, secret)).status).toBe(401);
  });

  it('a provisioning token made on one registers on the other, and the credential works on the first', async () => {
    const [a, b] = [replicas.a(), replicas.b()];
    const made = await call(a, 'POST', `${PARENT}/devices:createProvisioningToken`, { maxUses: 1 });
    expect(made.status).toBe(200);
    const { token, id } = (await made.json()) as { token: string; id: string };
    const listed = async (replica: Replica) =>
      (
        (await (await call(replica, 'GET', `${PARENT}/devices:listProvisioningTokens`)).json()) as {
          provisioningTokens: { id: string; uses: number }[];
        }
      ).provisioningTokens;
    expect((await listed(b)).map((t) => [t.id, t.uses])).toEqual([[id, 0]]);

    const registered = await call(b, 'POST', `${PARENT}/devices:register`, { deviceId: 'shared-1' }, token);
    expect(registered.status).toBe(200);
    const { credential } = (await registered.json()) as { credential: string };
    expect((await listed(a)).map((t) => [t.id, t.uses])).toEqual([[id, 1]]);
    expect((await call(a, 'POST', `${PARENT}/devices:register`, { deviceId: 'shared-2' }, token)).status).toBe(401);

    // the device's bearer credential, issued by B, is what A checks before it takes the device's key
    const publicKey = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const enroll = (secret: string) => call(a, 'POST', `${PARENT}/devices/shared-1:enrollKey`, { publicKey }, secret);
    expect((await enroll('odc_not-the-credential')).status).toBe(401);
    expect((await enroll(credential)).status).toBe(200);
    // and B now hands out challenges for the key A stored
    expect((await call(b, 'POST', `${PARENT}/devices/shared-1:challenge`, {})).status).toBe(200);
  });
});
