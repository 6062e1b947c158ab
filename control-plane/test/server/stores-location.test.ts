/**
 * Issue 22: everything the control plane keeps is in the store --database names. A restart on the same store
 * still knows the API keys, provisioning tokens and device credentials made before it; with PostgreSQL the data
 * folder holds no SQLite database at all (before, those stayed in `<data-dir>/outpost.db`). Runs in the default
 * project on SQLite and in the `postgres` project on PostgreSQL.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_ADMIN_KEY } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { TEST_DATABASE_VARIABLE, testDatabase } from '../helpers/test-database.js';

const PARENT = 'projects/stores/regions/eu';
const onPostgres = process.env[TEST_DATABASE_VARIABLE] === 'postgres';

const call = (server: TestServer, method: string, path: string, body?: unknown, secret = TEST_ADMIN_KEY) =>
  fetch(`${server.url}/v1/${path}`, {
    method,
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

describe(`the services' stores on ${onPostgres ? 'PostgreSQL' : 'SQLite'}`, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'outpost-stores-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('keep keys, tokens and credentials over a restart, in the chosen store only', async () => {
    const database = testDatabase();
    const first = await startTestServer({}, { dataDir, config: database });
    let key: string;
    let token: string;
    let credential: string;
    try {
      const made = await call(first, 'POST', 'apiKeys', {
        displayName: 'kept',
        grants: [{ permission: 'services/devices.outpost/permissions/devices.get', scope: '*' }],
      });
      key = ((await made.json()) as { secret: string }).secret;
      const created = await call(first, 'POST', `${PARENT}/devices:createProvisioningToken`, { maxUses: 2 });
      token = ((await created.json()) as { token: string }).token;
      const registered = await call(first, 'POST', `${PARENT}/devices:register`, { deviceId: 'kept-1' }, token);
      expect(registered.status).toBe(200);
      credential = ((await registered.json()) as { credential: string }).credential;
    } finally {
      await first.dispose();
    }
    expect(existsSync(join(dataDir, 'outpost.db'))).toBe(!onPostgres);

    const second = await startTestServer({}, { dataDir, config: database });
    try {
      expect((await call(second, 'GET', `${PARENT}/devices/none`, undefined, key)).status).toBe(404);
      const tokens = (await (await call(second, 'GET', `${PARENT}/devices:listProvisioningTokens`)).json()) as {
        provisioningTokens: { uses: number; maxUses: number }[];
      };
      expect(tokens.provisioningTokens).toEqual([expect.objectContaining({ uses: 1, maxUses: 2 })]);
      // the device's credential is checked before it may enroll a key
      const enroll = await call(second, 'POST', `${PARENT}/devices/kept-1:enrollKey`, {}, credential);
      expect(enroll.status).toBe(400); // authenticated; the body lacks the key
    } finally {
      await second.dispose();
    }
    expect(existsSync(join(dataDir, 'outpost.db'))).toBe(!onPostgres);
  });
});
