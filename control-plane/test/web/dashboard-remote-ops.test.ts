/**
 * The dashboard's byte transfers and device actions on a real droplet (simulated boot backend, its own process):
 * Upload files into the "Path on device" directory keeping their names, Download file by its full path, Restart
 * on an application's menu and Reboot from the device menu, each request built by the DOM-free API module and
 * sent by Node's fetch where the browser would use XMLHttpRequest.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pod } from '@outpost/shared';
import { DashboardClient } from '../../src/web/assets/api/client.js';
import { parseApiError } from '../../src/web/assets/api/errors.js';
import { downloadRequest, uploadRequest } from '../../src/web/assets/api/transfer-requests.js';
import { TEST_ADMIN_KEY } from '../helpers/test-server.js';
import { waitForDevice } from '../../../test/integration/helpers/wait-for.js';
import { RemoteOpsWorld, online } from '../../../test/integration/remote-ops-fixture.js';

const region = 'projects/dash-ops/regions/eu';
const device = `${region}/devices/dash-box`;
const world = new RemoteOpsWorld();
let client: DashboardClient;

beforeAll(async () => {
  await world.start();
  client = new DashboardClient({ apiKey: TEST_ADMIN_KEY, fetch, server: world.server.url });
  await world.onlineDevice(device);
}, 60_000);
afterAll(() => world.stop(), 30_000);

/** Sends a byte request of the API module as the browser would, failing with the server's error. */
async function send(request: { method: string; url: string; headers: Record<string, string> }, body?: Buffer) {
  const response = await fetch(`${world.server.url}${request.url}`, { ...request, ...(body ? { body } : {}) });
  if (!response.ok) throw parseApiError(response.status, await response.text());
  return response;
}

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out; last: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('files', () => {
  it('uploads several files into the Path on device directory under their own names, then downloads one', async () => {
    const into = world.folder('uploads');
    const files = {
      'app.conf': Buffer.from('port = 8000\n'),
      'notes with space.txt': Buffer.alloc(300_000, 7),
      '日本語 "q".txt': Buffer.from('名前\n'),
    };
    for (const [name, bytes] of Object.entries(files)) {
      const answer = await send(uploadRequest(TEST_ADMIN_KEY, device, `${into}/`, name), bytes);
      expect(await answer.json()).toMatchObject({ files: 1, bytes: bytes.length });
    }
    for (const [name, bytes] of Object.entries(files)) expect(readFileSync(join(into, name)).equals(bytes)).toBe(true);

    const remote = join(into, 'notes with space.txt');
    const request = downloadRequest(TEST_ADMIN_KEY, device, remote);
    expect(request.fileName).toBe('notes with space.txt');
    const answer = await send(request);
    expect(answer.headers.get('content-disposition')).toBe(
      `attachment; filename="notes with space.txt"; filename*=UTF-8''notes%20with%20space.txt`,
    );
    expect(answer.headers.get('content-length')).toBe(String(files['notes with space.txt'].length));
    expect(Buffer.from(await answer.arrayBuffer()).equals(files['notes with space.txt'])).toBe(true);

    // a name a header cannot carry as it is: printable ASCII in filename, the exact name in filename*
    const other = await send(downloadRequest(TEST_ADMIN_KEY, device, join(into, '日本語 "q".txt')));
    expect(other.headers.get('content-disposition')).toBe(
      `attachment; filename="___ _q_.txt"; filename*=UTF-8''${encodeURIComponent('日本語 "q".txt')}`,
    );
    expect(Buffer.from(await other.arrayBuffer()).equals(files['日本語 "q".txt'])).toBe(true);
  });

  it('a file that is not there, or a directory the upload cannot write, is the device error', async () => {
    const missing = await send(downloadRequest(TEST_ADMIN_KEY, device, '/nonexistent/dashboard/file')).catch(
      (err: unknown) => err,
    );
    expect(missing).toMatchObject({ status: 'NOT_FOUND' });
    const blocker = join(world.folder('blocked'), 'plain-file');
    writeFileSync(blocker, 'x');
    const refused = await send(uploadRequest(TEST_ADMIN_KEY, device, `${blocker}/`, 'a.txt'), Buffer.from('a')).catch(
      (err: unknown) => err,
    );
    expect(refused).toMatchObject({
      status: 'FAILED_PRECONDITION',
      code: 400,
      message: `${blocker}/ is not a directory`,
    });
    expect(existsSync(join(blocker, 'a.txt'))).toBe(false);
  });
});

describe('device and application actions', () => {
  it('Restart on an application restarts its services; Reboot is accepted and the device comes back', async () => {
    const pod = `${region}/pods/web`;
    await world.server.admin.create(region, 'pods', {
      name: pod,
      spec: { node: device, services: [{ name: 'api', command: ['sleep', '600'] }] },
    });
    const pidOf = (p: Pod): number | undefined => p.status?.serviceStatuses?.find((s) => s.name === 'api')?.pid;
    const running = await waitFor(
      () => world.server.admin.get<Pod>(pod),
      (p) => p.status?.phase === 'RUNNING' && pidOf(p) !== undefined,
    );
    expect((await client.listPods(device)).map((p) => p.name)).toEqual([pod]);
    await client.restartPod(pod);
    await waitFor(
      () => world.server.admin.get<Pod>(pod),
      (p) => p.status?.phase === 'RUNNING' && pidOf(p) !== undefined && pidOf(p) !== pidOf(running),
    );

    const before = await waitForDevice(
      world.server.admin,
      device,
      (d) => online(d) && d.status?.agent?.bootId !== undefined,
    );
    expect(await client.power(device, 'reboot')).toMatchObject({ name: device, action: 'REBOOT' });
    const bootId = before.status?.agent?.bootId;
    await waitForDevice(world.server.admin, device, (d) => online(d) && d.status?.agent?.bootId !== bootId, 30_000);
  });
});
