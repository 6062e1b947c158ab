import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { widgetDefinition } from '../helpers/widgets.js';
import { startLoggedServer } from './logged-server.js';
import type { LoggedServer } from './logged-server.js';

const PARENT = 'projects/p1/regions/eu';

/** `{"a":{"a":…1…}}`, `depth` objects deep. */
const nestedObject = (depth: number): string => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

describe("a client's malformed input is a 400 with a message, never a logged server error", () => {
  let s: LoggedServer;
  beforeAll(async () => {
    s = await startLoggedServer({}, { resources: [{ def: widgetDefinition }] });
  });
  afterAll(async () => s.dispose());

  async function expect400(res: Response, message: RegExp): Promise<void> {
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: number; status: string; message: string } };
    expect(body.error.code).toBe(400);
    expect(body.error.status).toBe('INVALID_ARGUMENT');
    expect(body.error.message).toMatch(message);
    expect(s.serverErrors()).toEqual([]);
  }

  it('refuses a deeply nested JSON body, and changes nothing', async () => {
    const post = (body: string) =>
      s.admin(`/v1/${PARENT}/widgets`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    await expect400(
      await post(`{"name":"${PARENT}/widgets/w-deep","spec":{"network":${nestedObject(20_000)}}}`),
      /nested too deeply/,
    );
    await expect400(await post(`{"spec":${'['.repeat(100_000)}${']'.repeat(100_000)}}`), /nested too deeply/);
    expect((await s.admin(`/v1/${PARENT}/widgets/w-deep`)).status).toBe(404);
    // a watch request body, too
    const watch = await s.admin(`/v1/${PARENT}/widgets:watch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"filter":${nestedObject(5_000)}}`,
    });
    await expect400(watch, /nested too deeply/);
  });

  it('takes JSON nested as deep as documents go', async () => {
    const res = await s.admin(`/v1/${PARENT}/widgets`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: `${PARENT}/widgets/w-nested`, spec: { network: { dhcp: true } } }),
    });
    expect(res.status).toBe(200);
  });

  it('refuses bad percent-encoding in a path (%ZZ)', async () => {
    await expect400(await s.admin(`/v1/${PARENT}/widgets/%ZZ`), /percent-encoding/);
    await expect400(await s.admin(`/v1/projects/%E0%A4%A/regions/eu/widgets`), /percent-encoding/);
    await expect400(await s.admin('/v1/artifacts/%ZZ'), /percent-encoding|decode/);
    await expect400(
      await s.admin(`/v1/${PARENT}/devices/%ZZ:download?path=/etc/hostname`),
      /percent-encoding|not a device name/,
    );
  });

  it('refuses an artifact upload whose bytes do not match its declared SHA-256, and stores nothing', async () => {
    const declared = '0'.repeat(64);
    const res = await s.admin('/v1/artifacts', {
      method: 'PUT',
      headers: { 'content-type': 'application/octet-stream', 'x-content-sha256': declared },
      body: Buffer.alloc(100_000, 7),
    });
    await expect400(res, /SHA-256 is [0-9a-f]{64}, expected 0{64}/);
    expect((await s.admin(`/v1/artifacts/${declared}`, { method: 'HEAD' })).status).toBe(404);
  });
});
