import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_ADMIN_KEY } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

const RULE = '[a-z][a-z0-9-]{0,28}[a-z0-9]';
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server.dispose());

/** `body`: sent as JSON, or as raw bytes when it is a Uint8Array */
async function call(method: string, path: string, body?: unknown, key = TEST_ADMIN_KEY) {
  const raw = body instanceof Uint8Array;
  const response = await fetch(`${server.url}/v1/${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': raw ? 'application/octet-stream' : 'application/json' }),
    },
    body: body === undefined ? undefined : raw ? body : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as unknown };
}

const invalid = (message: string) => ({ error: { code: 400, status: 'INVALID_ARGUMENT', message } });

describe('a name whose id breaks its rule is answered with that id and rule', () => {
  it('a device list under a one-letter project', async () => {
    expect(await call('GET', 'projects/p/regions/-/devices')).toEqual({
      status: 400,
      body: invalid(`invalid parent "projects/p/regions/-" for devices: project id "p" must match ${RULE}`),
    });
  });

  it('a limit name, by its project or by the segment of the limit id at fault (not as a project name)', async () => {
    expect(await call('GET', 'projects/p/limits/eu/devices.outpost/devices')).toEqual({
      status: 400,
      body: invalid(
        `invalid limit name "projects/p/limits/eu/devices.outpost/devices": project id "p" must match ${RULE}`,
      ),
    });
    expect(await call('GET', 'projects/acme/limits/e_u/devices.outpost/devices')).toEqual({
      status: 400,
      body: invalid(
        'invalid limit name "projects/acme/limits/e_u/devices.outpost/devices": limit id "e_u/devices.outpost/devices" ' +
          'must be region/service/kind: region "e_u" must match [a-zA-Z0-9-]{1,128}',
      ),
    });
  });

  it('an update of a device with a one-letter project, which writes nothing', async () => {
    const name = 'projects/p/regions/eu/devices/gw-1';
    expect(
      await call('PUT', `${name}?updateMask=spec.osVersion&allowMissing=true`, { spec: { osVersion: '1.1.0' } }),
    ).toEqual({
      status: 400,
      body: invalid(`invalid device name "${name}": project id "p" must match ${RULE}`),
    });
    const listed = await call('GET', 'projects/-/regions/-/devices');
    expect(listed).toMatchObject({ status: 200, body: { devices: [] } });
  });

  it('a custom method on such a name (it used to be "no endpoint", 404)', async () => {
    expect(await call('POST', 'projects/p/regions/eu/devices/gw-1:reboot', {})).toEqual({
      status: 400,
      body: invalid(`invalid device name "projects/p/regions/eu/devices/gw-1": project id "p" must match ${RULE}`),
    });
  });

  it('a registration under such a parent, which authenticates by its own token', async () => {
    const registered = await call(
      'POST',
      'projects/p/regions/eu/devices:register',
      { deviceId: 'gw-7' },
      'opk_not_a_provisioning_token',
    );
    expect(registered).toEqual({
      status: 400,
      body: invalid(`invalid parent "projects/p/regions/eu" for devices: project id "p" must match ${RULE}`),
    });
  });

  it('an upload to a device with a one-letter id', async () => {
    expect(
      await call('POST', 'projects/acme/regions/eu/devices/g:upload?path=/tmp/&name=a.txt', Buffer.from('x')),
    ).toEqual({
      status: 400,
      body: invalid(`invalid device name "projects/acme/regions/eu/devices/g": device id "g" must match ${RULE}`),
    });
  });

  it.each([
    ['GET', '-/devices'],
    ['POST', '-/devices:watch'],
  ])('a collection path of no known parent names the parent: %s /v1/%s', async (method, path) => {
    const body = method === 'POST' ? { type: 'STATELESS' } : undefined;
    expect(await call(method, path, body)).toEqual({
      status: 400,
      body: invalid('invalid parent "-" for devices: must look like projects/{project}/regions/{region}'),
    });
  });

  it('a name of no known shape still says what the names of its kind look like', async () => {
    expect(await call('GET', 'projects/acme/regions/eu/devices/gw-1/extra')).toEqual({
      status: 400,
      body: invalid(
        'invalid device name "projects/acme/regions/eu/devices/gw-1/extra": must look like projects/{project}/regions/{region}/devices/{device}',
      ),
    });
  });
});
