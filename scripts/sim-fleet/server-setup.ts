import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { ApiError, osVersionId } from '@outpost/shared';
import type { OutpostClient } from '@outpost/shared';

/** Where the fleet's records are written, with an admin's key. */
export interface SimServer {
  client: OutpostClient;
  serverUrl: string;
  apiKey: string;
}

/**
 * Publishes `version` for `deviceType` (creating the device type when missing) with a tiny artifact: simulated
 * devices download nothing, but the server refuses versions that are not published, and sends the agent the
 * image record its planner checks. Publishing an existing version again changes nothing.
 */
export async function publishSimulatedVersion(server: SimServer, deviceType: string, version: string): Promise<void> {
  const { client } = server;
  const typeName = `deviceTypes/${deviceType}`;
  await ignoring('ALREADY_EXISTS', () => client.create('', 'deviceTypes', { name: typeName, displayName: deviceType }));
  const content = Buffer.from(`sim-fleet image of ${deviceType} ${version}\n`);
  const digest = createHash('sha256').update(content).digest();
  const sha256 = digest.toString('hex');
  const uploaded = await fetch(`${server.serverUrl}/v1/artifacts`, {
    method: 'PUT',
    headers: {
      authorization: `Bearer ${server.apiKey}`,
      'content-type': 'application/octet-stream',
      'x-content-sha256': sha256,
    },
    body: content,
  });
  if (!uploaded.ok) throw ApiError.fromBody(await uploaded.json().catch(() => null), uploaded.status);
  // simulated devices trust any image, so a throwaway key signs it (the server takes only a well-formed signature)
  const { privateKey } = generateKeyPairSync('ed25519');
  await ignoring('ALREADY_EXISTS', () =>
    client.create('', 'osVersions', {
      name: `osVersions/${osVersionId(deviceType, version)}`,
      version,
      deviceType: typeName,
      artifact: { sha256, size: content.length },
      signature: sign(null, digest, privateKey).toString('base64'),
    }),
  );
}

/**
 * Creates the device when missing (with `labels`; an existing device keeps its own) and issues it a new credential
 * (the old one, if any, stops working).
 */
export async function provisionSimDevice(
  server: SimServer,
  name: string,
  labels: Record<string, string> = {},
): Promise<string> {
  const parent = name.slice(0, name.lastIndexOf('/devices/'));
  await ignoring('ALREADY_EXISTS', () => server.client.create(parent, 'devices', { name, metadata: { labels } }));
  const issued = await server.client.request<{ credential: string }>('POST', `/v1/${name}:issueCredential`, {
    body: {},
  });
  return issued.credential;
}

async function ignoring(status: string, call: () => Promise<unknown>): Promise<void> {
  try {
    await call();
  } catch (err) {
    if (!(err instanceof ApiError && err.status === status)) throw err;
  }
}

/** provisionSimDevice for many devices, `concurrency` requests at a time; the credentials in the same order. */
export async function provisionSimDevices(
  server: SimServer,
  devices: readonly { name: string; labels?: Record<string, string> }[],
  concurrency = 16,
  onProgress?: (done: number) => void,
): Promise<string[]> {
  const credentials = new Array<string>(devices.length);
  let next = 0;
  let done = 0;
  const worker = async (): Promise<void> => {
    while (next < devices.length) {
      const i = next++;
      const device = devices[i]!;
      credentials[i] = await provisionSimDevice(server, device.name, device.labels);
      onProgress?.(++done);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, devices.length) }, worker));
  return credentials;
}
