/**
 * An upload's temporary file (`.<name>.<hex>.outpost-part`) on a device whose agent stops or dies midway: a stop
 * removes it before the agent exits, and a killed agent's next start removes exactly the ones it left.
 */
import { request } from 'node:http';
import type { ClientRequest } from 'node:http';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RemoteOpsWorld, offline, online } from './remote-ops-fixture.js';
import { perAttempt } from './helpers/per-attempt.js';
import { waitForDevice } from './helpers/wait-for.js';

const PARENT = 'projects/files/regions/eu';
const MIB = 1024 * 1024;
const world = new RemoteOpsWorld();

const uploads: ClientRequest[] = [];

beforeAll(() => world.start(1));
// an upload a failed attempt left stalled would hold the server's close (and so afterAll) open
afterEach(() => uploads.splice(0).forEach((upload) => upload.destroy()));
afterAll(() => world.stop());

/**
 * Starts a raw upload of `size` bytes into `dir` on `device` and sends only its first MiB: the agent holds the file's
 * temporary file open, waiting for the rest.
 */
function stalledUpload(device: string, dir: string, size: number): ClientRequest {
  const url = new URL(`/v1/${device}:upload`, world.server.url);
  url.searchParams.set('path', dir);
  url.searchParams.set('name', 'big.bin');
  const req = request(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${world.cliEnv().OUTPOST_API_KEY}`,
      'content-type': 'application/octet-stream',
      'content-length': String(size),
    },
  });
  req.on('error', () => undefined); // cut by the test
  req.write(Buffer.alloc(MIB, 7));
  uploads.push(req);
  return req;
}

const partFiles = (dir: string): string[] => readdirSync(dir).filter((name) => name.endsWith('.outpost-part'));

async function waitForPartFile(dir: string): Promise<string> {
  await expect.poll(() => partFiles(dir).length, { timeout: 30_000, interval: 20 }).toBe(1);
  return partFiles(dir)[0]!;
}

describe('an upload interrupted on the device', () => {
  it('a killed agent leaves its partial file; its next start removes exactly that file', async (context) => {
    const device = perAttempt(context, `${PARENT}/devices/part-box-killed`);
    const root = await world.provision(device);
    const agent = world.startAgent(root);
    await waitForDevice(world.server.admin, device, online, 30_000);
    const target = world.folder(perAttempt(context, 'killed'));
    // a file of the user's with a part file's name, which no upload of this agent wrote: it stays
    const lookalike = '.notes.txt.0123456789ab.outpost-part';
    writeFileSync(join(target, lookalike), 'mine');

    const upload = stalledUpload(device, target, 64 * MIB);
    const ours = (): string[] => partFiles(target).filter((name) => name !== lookalike);
    await expect.poll(() => ours().length, { timeout: 30_000, interval: 20 }).toBe(1);
    const [left = ''] = ours();
    await agent.kill('SIGKILL');
    upload.destroy();
    await waitForDevice(world.server.admin, device, offline, 10_000);
    expect(existsSync(join(target, left))).toBe(true);

    const restarted = world.startAgent(root);
    await waitForDevice(world.server.admin, device, online, 30_000);
    expect(readdirSync(target).sort()).toEqual([lookalike]);
    expect(readdirSync(join(root, 'data', 'upload-parts'))).toEqual([]);
    expect(restarted.output()).toContain('removed the partial files of uploads interrupted by the last stop');
    await restarted.kill('SIGKILL');
    await waitForDevice(world.server.admin, device, offline, 10_000);
  }, 90_000);

  it('an agent stopped with SIGTERM removes the partial file before it exits', async (context) => {
    const device = perAttempt(context, `${PARENT}/devices/part-box-stopped`);
    const root = await world.provision(device);
    const agent = world.startAgent(root);
    await waitForDevice(world.server.admin, device, online, 30_000);
    const target = world.folder(perAttempt(context, 'stopped'));
    const upload = stalledUpload(device, target, 64 * MIB);
    await waitForPartFile(target);
    await agent.kill('SIGTERM');
    upload.destroy();
    expect(readdirSync(target)).toEqual([]);
    expect(readdirSync(join(root, 'data', 'upload-parts'))).toEqual([]);
  }, 90_000);
});
