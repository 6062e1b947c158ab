/**
 * Issue 16, artifacts: a device downloads only the artifacts of versions published for its device type, its
 * downloads in progress end when its credential is revoked, and artifacts no version refers to are removed
 * (when their last version is deleted, and by `outpost os gc`).
 */
import { existsSync, utimesSync } from 'node:fs';
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerOsCommands } from '../../src/cli/os-commands.js';
import { runCli } from '../cli/harness.js';
import { perAttempt } from '../helpers/per-attempt.js';
import { startTestServer, TEST_ADMIN_KEY } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

let server: TestServer;
const auth = { authorization: `Bearer ${TEST_ADMIN_KEY}` };
const { privateKey } = generateKeyPairSync('ed25519');
const parent = 'projects/artifacts/regions/eu';

beforeAll(async () => {
  server = await startTestServer();
  for (const type of ['sim', 'other']) {
    await server.admin.create('', 'deviceTypes', { name: `deviceTypes/${type}`, architecture: 'AMD64' });
  }
});
afterAll(async () => server.dispose());

async function upload(size = 50_000): Promise<{ sha256: string; size: number }> {
  const res = await fetch(`${server.url}/v1/artifacts`, { method: 'PUT', headers: auth, body: randomBytes(size) });
  expect(res.status).toBe(200);
  return (await res.json()) as { sha256: string; size: number };
}

async function publish(type: string, version: string, artifact: { sha256: string; size: number }): Promise<string> {
  const name = `osVersions/${type}-${version}`;
  await server.admin.create('', 'osVersions', {
    name,
    version,
    deviceType: `deviceTypes/${type}`,
    artifact,
    signature: sign(null, Buffer.from(artifact.sha256, 'hex'), privateKey).toString('base64'),
  });
  return name;
}

/** A provisioned device of `type` (none: a device whose type is not known); its credential. */
async function deviceCredential(id: string, type?: string): Promise<string> {
  const name = `${parent}/devices/${id}`;
  await server.admin.create(parent, 'devices', { name });
  const res = await fetch(`${server.url}/v1/${name}:provision`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify(type ? { deviceType: type } : {}),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { credential: string }).credential;
}

const download = (sha256: string, secret: string, method = 'GET') =>
  fetch(`${server.url}/v1/artifacts/${sha256}`, { method, headers: { authorization: `Bearer ${secret}` } });

const artifactFile = (sha256: string): string => join(server.dataDir, 'artifacts', sha256);

describe('what a device may download', () => {
  it('the artifacts of versions published for its type, and no other (404 to it), while API keys get any', async (context) => {
    const simImage = await upload();
    const otherImage = await upload();
    const unpublished = await upload();
    await publish('sim', perAttempt(context, '1.0.0'), simImage);
    await publish('other', perAttempt(context, '1.0.0'), otherImage);
    const sim = await deviceCredential(perAttempt(context, 'sim-1'), 'sim');
    const untyped = await deviceCredential(perAttempt(context, 'untyped-1'));

    expect((await download(simImage.sha256, sim)).status).toBe(200);
    expect((await download(simImage.sha256, sim, 'HEAD')).status).toBe(200);
    for (const sha256 of [otherImage.sha256, unpublished.sha256]) {
      const refused = await download(sha256, sim);
      expect(refused.status).toBe(404);
      expect(((await refused.json()) as { error: { status: string } }).error.status).toBe('NOT_FOUND');
      expect((await download(sha256, sim, 'HEAD')).status).toBe(404);
    }
    expect((await download(simImage.sha256, untyped)).status).toBe(404);
    expect((await download('not-a-digest', sim)).status).toBe(400);
    for (const sha256 of [simImage.sha256, otherImage.sha256, unpublished.sha256]) {
      expect((await download(sha256, TEST_ADMIN_KEY)).status).toBe(200);
    }
  });

  it('a download in progress ends at the revocation of its credential', async (context) => {
    const big = await upload(32 * 1024 * 1024);
    await publish('sim', perAttempt(context, '2.0.0'), big);
    const revoked = perAttempt(context, 'revoked-1');
    const name = `${parent}/devices/${revoked}`;
    const credential = await deviceCredential(revoked, 'sim');
    const res = await download(big.sha256, credential);
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    expect((await reader.read()).done).toBe(false); // then it stops reading: the rest waits in the server

    const revokedAt = Date.now();
    await server.admin.request('POST', `/v1/${name}:revokeCredential`, { body: {} });
    const ended = await (async () => {
      try {
        for (;;) if ((await reader.read()).done) return 'complete';
      } catch {
        return 'cut';
      }
    })();
    expect(ended).toBe('cut');
    // not bound to the second itself: a loaded machine can take longer than that to answer the revocation, and a
    // download that is not cut reads its 32 MiB to the end ('complete'), so the bound only rules out a far later cut
    expect(Date.now() - revokedAt).toBeLessThan(10_000);
    expect((await download(big.sha256, credential)).status).toBe(401);
  });
});

describe('artifacts no version refers to', () => {
  it('go with the last version that refers to them', async (context) => {
    const shared = await upload();
    const first = await publish('sim', perAttempt(context, '3.0.0'), shared);
    const second = await publish('other', perAttempt(context, '3.0.0'), shared);
    await server.admin.delete(first);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(existsSync(artifactFile(shared.sha256))).toBe(true);
    await server.admin.delete(second);
    await expect.poll(() => existsSync(artifactFile(shared.sha256))).toBe(false);
    expect((await download(shared.sha256, TEST_ADMIN_KEY)).status).toBe(404);
  });

  it('are removed by outpost os gc once older than --min-age; referenced and recent ones stay', async (context) => {
    const referenced = await upload();
    await publish('sim', perAttempt(context, '4.0.0'), referenced);
    const old = await upload();
    const recent = await upload();
    const hourAgo = new Date(Date.now() - 2 * 3600 * 1000);
    for (const a of [referenced, old]) utimesSync(artifactFile(a.sha256), hourAgo, hourAgo);

    const gc = await runCli(['os', 'gc', '-o', 'json'], {
      env: { OUTPOST_SERVER: server.url, OUTPOST_API_KEY: TEST_ADMIN_KEY },
      register: (program, ctxFactory) => registerOsCommands(program, ctxFactory),
    });
    expect(gc.code, gc.stderr).toBe(0);
    expect(JSON.parse(gc.stdout)).toEqual({ removed: [{ sha256: old.sha256, size: old.size }], freedBytes: old.size });
    expect(existsSync(artifactFile(old.sha256))).toBe(false);
    expect(existsSync(artifactFile(referenced.sha256))).toBe(true);
    expect(existsSync(artifactFile(recent.sha256))).toBe(true);

    const now = await runCli(['os', 'gc', '--min-age', '0'], {
      env: { OUTPOST_SERVER: server.url, OUTPOST_API_KEY: TEST_ADMIN_KEY },
      register: (program, ctxFactory) => registerOsCommands(program, ctxFactory),
    });
    expect(now.code, now.stderr).toBe(0);
    expect(now.stdout).toContain(`removed ${recent.sha256}`);
    expect(existsSync(artifactFile(recent.sha256))).toBe(false);
    expect(existsSync(artifactFile(referenced.sha256))).toBe(true);
  });

  it('gc needs osVersions.delete and refuses a bad minimum age, removing nothing', async () => {
    const kept = await upload();
    const created = (await (
      await fetch(`${server.url}/v1/apiKeys`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({
          displayName: 'publisher',
          grants: [{ permission: 'services/devices.outpost/permissions/osVersions.create', scope: '*' }],
        }),
      })
    ).json()) as { secret: string };
    const gc = (body: unknown, secret = TEST_ADMIN_KEY) =>
      fetch(`${server.url}/v1/artifacts:collectGarbage`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await gc({ minAgeSeconds: 0 }, created.secret)).status).toBe(403);
    for (const minAgeSeconds of [-1, 1.5, '0']) {
      expect((await gc({ minAgeSeconds })).status, String(minAgeSeconds)).toBe(400);
    }
    expect(existsSync(artifactFile(kept.sha256))).toBe(true);
  });
});
