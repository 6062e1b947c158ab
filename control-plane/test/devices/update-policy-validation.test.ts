import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Device } from '@outpost/shared';
import { startTestServer, TEST_ADMIN_KEY } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

const parent = 'projects/acme/regions/eu';
const name = `${parent}/devices/maint-1`;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  await server.admin.create(parent, 'devices', { name, spec: {} });
});
afterAll(async () => server.dispose());

const writePolicy = (updatePolicy: unknown): Promise<Response> =>
  fetch(`${server.url}/v1/${name}?updateMask=spec.updatePolicy`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${TEST_ADMIN_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name, spec: { updatePolicy } }),
  });

async function refused(res: Response): Promise<string> {
  const body = (await res.json()) as { error: { status: string; message: string } };
  expect(res.status).toBe(400);
  expect(body.error.status).toBe('INVALID_ARGUMENT');
  return body.error.message;
}

describe('spec.updatePolicy is checked when written (issue 19)', () => {
  it('stores good windows', async () => {
    const policy = {
      maintenanceWindows: [
        { schedule: '0 2 * * mon-fri', duration: '2h', timeZone: 'Europe/Berlin' },
        { schedule: '30 23 * * sat', duration: '1h30m' },
      ],
      downloadInWindowOnly: true,
    };
    expect((await writePolicy(policy)).status).toBe(200);
    expect((await server.admin.get<Device>(name)).spec?.updatePolicy).toEqual(policy);
  });

  it.each([
    [
      'a cron field out of range',
      { schedule: '0 24 * * *', duration: '1h' },
      '[0].schedule: "0 24 * * *" is not a cron',
    ],
    ['too few fields', { schedule: '0 2 *', duration: '1h' }, '[0].schedule: "0 2 *" is not a cron'],
    ['a last-day token', { schedule: '0 2 L * *', duration: '1h' }, '[0].schedule: "0 2 L * *" uses L, W, # or ?'],
    ['a duration with no unit', { schedule: '0 2 * * *', duration: '120' }, '[0].duration: "120" is not a duration'],
    ['a window under a minute', { schedule: '0 2 * * *', duration: '30s' }, '[0].duration: 30s is out of range'],
    ['a window over a week', { schedule: '0 2 * * *', duration: '8d' }, '[0].duration: 8d is out of range'],
    [
      'an unknown zone',
      { schedule: '0 2 * * *', duration: '1h', timeZone: 'Berlin' },
      '[0].timeZone: "Berlin" is not an IANA',
    ],
  ])('refuses %s, naming the path, and changes nothing', async (_what, window, message) => {
    const before = await server.admin.get<Device>(name);
    expect(await refused(await writePolicy({ maintenanceWindows: [window] }))).toContain(
      `spec.updatePolicy.maintenanceWindows${message}`,
    );
    expect(await server.admin.get<Device>(name)).toEqual(before);
  });

  it('refuses more than 16 windows', async () => {
    const windows = Array.from({ length: 17 }, () => ({ schedule: '0 2 * * *', duration: '1h' }));
    expect(await refused(await writePolicy({ maintenanceWindows: windows }))).toContain(
      'spec.updatePolicy.maintenanceWindows: at most 16 windows',
    );
  });
});
