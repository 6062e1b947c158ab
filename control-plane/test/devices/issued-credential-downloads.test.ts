/**
 * A device first provisioned with a key pair, then given a bearer credential through `:issueCredential`,
 * downloads with that credential: the credential replaces the key (on SQLite, and on PostgreSQL in the
 * `postgres` project). An artifact not published for the device's type is 404 to it, not 401; 401 means the
 * credential no longer authenticates (a key registered after it replaced it).
 */
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { perAttempt } from '../helpers/per-attempt.js';
import { startTestServer, TEST_ADMIN_KEY } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

let server: TestServer;
const auth = { authorization: `Bearer ${TEST_ADMIN_KEY}` };
const parent = 'projects/issued/regions/eu';
let published: string;

const post = (path: string, body: object): Promise<Response> =>
  fetch(`${server.url}/v1/${path}`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

const download = (sha256: string, secret: string): Promise<Response> =>
  fetch(`${server.url}/v1/artifacts/${sha256}`, { headers: { authorization: `Bearer ${secret}` } });

const devicePublicKey = (): string =>
  generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();

/** A device provisioned with a key pair (and `deviceType`, if given), then issued a bearer credential: the credential. */
async function keyedThenIssued(id: string, deviceType?: string): Promise<string> {
  const name = `${parent}/devices/${id}`;
  await server.admin.create(parent, 'devices', { name });
  const provisioned = await post(`${name}:provision`, {
    publicKey: devicePublicKey(),
    ...(deviceType && { deviceType }),
  });
  expect(provisioned.status).toBe(200);
  const issued = await post(`${name}:issueCredential`, {});
  expect(issued.status).toBe(200);
  return ((await issued.json()) as { credential: string }).credential;
}

beforeAll(async () => {
  server = await startTestServer();
  await server.admin.create('', 'deviceTypes', { name: 'deviceTypes/sim', architecture: 'AMD64' });
  const uploaded = await fetch(`${server.url}/v1/artifacts`, { method: 'PUT', headers: auth, body: randomBytes(4096) });
  const artifact = (await uploaded.json()) as { sha256: string; size: number };
  const { privateKey } = generateKeyPairSync('ed25519');
  await server.admin.create('', 'osVersions', {
    name: 'osVersions/sim-1.0.0',
    version: '1.0.0',
    deviceType: 'deviceTypes/sim',
    artifact,
    signature: sign(null, Buffer.from(artifact.sha256, 'hex'), privateKey).toString('base64'),
  });
  published = artifact.sha256;
});
afterAll(async () => server.dispose());

describe('a bearer credential issued to a device that had a key pair', () => {
  it('downloads the artifacts published for its type', async (context) => {
    const credential = await keyedThenIssued(perAttempt(context, 'keyed-sim-1'), 'sim');
    expect((await download(published, credential)).status).toBe(200);
  });

  it('is a device without a type: 404 for the artifact, not 401', async (context) => {
    const credential = await keyedThenIssued(perAttempt(context, 'keyed-untyped-1'));
    const refused = await download(published, credential);
    expect(refused.status).toBe(404);
  });

  it('is 401 once a key registered after it replaces it', async (context) => {
    const id = perAttempt(context, 'keyed-rekeyed-1');
    const credential = await keyedThenIssued(id, 'sim');
    const name = `${parent}/devices/${id}`;
    expect((await post(`${name}:issueCredential`, { publicKey: devicePublicKey() })).status).toBe(200);
    expect((await download(published, credential)).status).toBe(401);
  });
});
