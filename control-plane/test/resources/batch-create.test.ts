import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Device } from '@outpost/shared';
import { perAttempt } from '../helpers/per-attempt.js';
import { startTestServer, TEST_ADMIN_KEY } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

/**
 * `POST /v1/{parent}/devices:batchCreate` (AIP-233): many creates in one call and one transaction, each with
 * the rules of a create; all or nothing; bad input is a 400 that changes nothing.
 */
let server: TestServer;
const parent = 'projects/bulk/regions/eu';
const auth = { authorization: `Bearer ${TEST_ADMIN_KEY}`, 'content-type': 'application/json' };
const name = (id: string, at = parent): string => `${at}/devices/${id}`;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server.dispose());

const batchCreate = (body: unknown, at = parent) =>
  fetch(`${server.url}/v1/${at}/devices:batchCreate`, { method: 'POST', headers: auth, body: JSON.stringify(body) });

async function stored(at = parent): Promise<string[]> {
  const { devices } = await server.admin.request<{ devices: Device[] }>('GET', `/v1/${at}/devices?pageSize=1000`);
  return devices.map((device) => device.name);
}

async function refusal(res: Response): Promise<[number, string, string]> {
  const { error } = (await res.json()) as { error: { status: string; message: string } };
  return [res.status, error.status, error.message];
}

describe('devices:batchCreate', () => {
  it('creates every device in the order asked, through the rules of a create, an id generated where none is given', async (context) => {
    // the attempt's own parent: it holds exactly what this attempt created
    const at = `${perAttempt(context, 'projects/bulk')}/regions/eu`;
    const inAt = (id: string) => name(id, at);
    const ids = Array.from({ length: 40 }, (_, i) => `b-${String(i).padStart(2, '0')}`);
    const res = await batchCreate(
      {
        requests: [
          ...ids.map((id) => ({ device: { name: inAt(id), metadata: { labels: { site: 'berlin' } } } })),
          { parent: at, device: {} },
        ],
      },
      at,
    );
    expect(res.status).toBe(200);
    const { devices } = (await res.json()) as { devices: Device[] };
    expect(devices.slice(0, 40).map((device) => device.name)).toEqual(ids.map(inAt));
    expect(devices[40]?.name).toMatch(new RegExp(`^${at}/devices/[a-z0-9-]+$`));
    expect(devices[3]?.status?.connectionStatus).toBe('DISCONNECTED');
    expect(await stored(at)).toEqual([...ids.map(inAt), devices[40]!.name].sort());
  });

  it('is all or nothing: one refused create answers its error and nothing is created', async () => {
    const before = await stored();
    const invalid = await batchCreate({
      requests: [{ device: { name: name('c-1') } }, { device: { name: name('c-2'), spec: { osVersion: 7 } } }],
    });
    expect((await refusal(invalid)).slice(0, 2)).toEqual([400, 'INVALID_ARGUMENT']);
    const taken = await batchCreate({
      requests: [{ device: { name: name('c-1') } }, { device: { name: name('b-01') } }],
    });
    expect(await refusal(taken)).toEqual([409, 'ALREADY_EXISTS', `device "${name('b-01')}" already exists`]);
    expect(await stored()).toEqual(before);
  });

  it('refuses malformed calls with a 400 naming what is wrong', async () => {
    const before = await stored();
    const one = { device: { name: name('d-1') } };
    const cases: [unknown, string][] = [
      [{}, 'batchCreate needs a non-empty "requests" list'],
      [{ requests: [] }, 'batchCreate needs a non-empty "requests" list'],
      [{ requests: [one], allowPartialSuccess: true }, 'unknown field "allowPartialSuccess" in batchCreate'],
      [{ requests: [{ device: { name: name('d-1') }, updateMask: 'x' }] }, 'unknown field "updateMask" in requests[0]'],
      [{ requests: [one, { parent: 'projects/bulk/regions/us', device: {} }] }, 'requests[1].parent'],
      [{ requests: [one, { device: 'd-2' }] }, 'requests[1].device must be a JSON object'],
      [{ requests: [one, one] }, 'is created twice in one batch'],
      [{ requests: [{ device: { name: 'projects/bulk/regions/us/devices/d-3' } }] }, 'is not in parent'],
      [{ requests: Array.from({ length: 1001 }, () => ({ device: {} })) }, 'at most 1000 requests, not 1001'],
    ];
    for (const [body, message] of cases) {
      const [status, code, text] = await refusal(await batchCreate(body));
      expect([status, code], message).toEqual([400, 'INVALID_ARGUMENT']);
      expect(text).toContain(message);
    }
    expect(await stored()).toEqual(before);
  });
});
