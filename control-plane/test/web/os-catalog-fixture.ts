/** The OS catalog the dashboard tests offer in Edit detail: published versions of deviceTypes/sim. */
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { TEST_ADMIN_KEY } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

const { privateKey } = generateKeyPairSync('ed25519');

/** Uploads an image and publishes it as `version` for deviceTypes/sim, as `outpost os publish` does. */
export async function publishSimVersion(
  server: TestServer,
  version: string,
  minimumPreviousVersion?: string,
): Promise<void> {
  const image = randomBytes(4096);
  const uploaded = await fetch(`${server.url}/v1/artifacts`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${TEST_ADMIN_KEY}` },
    body: image,
  });
  const { sha256, size } = (await uploaded.json()) as { sha256: string; size: number };
  await server.admin.create('', 'osVersions', {
    name: `osVersions/sim-${version}`,
    version,
    deviceType: 'deviceTypes/sim',
    artifact: { sha256, size },
    signature: sign(null, Buffer.from(sha256, 'hex'), privateKey).toString('base64'),
    ...(minimumPreviousVersion ? { minimumPreviousVersion } : {}),
  });
}
