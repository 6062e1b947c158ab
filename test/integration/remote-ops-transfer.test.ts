/**
 * Issue 6, file transfer at scale and at its edges: a 1 GiB round trip whose SHA-256 matches end to end while the
 * device keeps its heartbeats and status flowing, interrupted transfers that leave no partial file, the
 * projects.connect permission, the dashboard's REST upload and download, and the debug bundle.
 */
import { createHash, randomFillSync } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Device } from '@outpost/shared';
import { RemoteOpsWorld } from './remote-ops-fixture.js';

const DEVICE = 'projects/files/regions/eu/devices/big-box';
const GIB = 1024 * 1024 * 1024;
const world = new RemoteOpsWorld();
let local: string;
let remote: string;
let big: string;
let bigSha: string;

async function writeRandomFile(path: string, size: number): Promise<string> {
  const hash = createHash('sha256');
  const out = createWriteStream(path);
  const block = Buffer.allocUnsafe(64 * 1024 * 1024);
  for (let written = 0; written < size; written += block.length) {
    const part = block.subarray(0, Math.min(block.length, size - written));
    randomFillSync(part);
    hash.update(part);
    if (!out.write(part)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  return hash.digest('hex');
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 4 * 1024 * 1024 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Records, through a watch, every connection status and metrics sample the device gets while `during` runs. */
async function observeDevice<T>(during: () => Promise<T>): Promise<{ result: T; statuses: string[]; samples: number }> {
  const controller = new AbortController();
  const statuses: string[] = [];
  const sampleTimes = new Set<string>();
  const watching = (async () => {
    try {
      for await (const message of world.server.admin.watch<{ change: Record<string, { device?: Device }> }>(
        `/v1/${DEVICE}:watch`,
        {},
        controller.signal,
      )) {
        const device = Object.values(message.change)[0]?.device;
        if (device?.status?.connectionStatus) statuses.push(device.status.connectionStatus);
        if (device?.status?.metrics?.time) sampleTimes.add(device.status.metrics.time);
      }
    } catch (err) {
      if (!controller.signal.aborted) throw err;
    }
  })();
  try {
    const result = await during();
    return { result, statuses, samples: sampleTimes.size };
  } finally {
    controller.abort();
    await watching;
  }
}

const waitForFile = async (dir: string, test: (name: string) => boolean): Promise<void> => {
  await expect.poll(() => readdirSync(dir).some(test), { timeout: 30_000, interval: 20 }).toBe(true);
};

beforeAll(async () => {
  await world.start(1);
  await world.onlineDevice(DEVICE);
  local = world.folder('local');
  remote = world.folder('remote');
  big = join(local, 'big.bin');
  bigSha = await writeRandomFile(big, GIB);
}, 120_000);
afterAll(() => world.stop());

describe('a 1 GiB round trip', () => {
  it('arrives with the same SHA-256 both ways while the device stays Online and keeps reporting', async () => {
    const back = join(world.folder('back'), 'big.bin');
    const { result, statuses, samples } = await observeDevice(async () => {
      const started = Date.now();
      const up = await world.cli(['devices', 'scp', big, `${DEVICE}:${remote}/`]);
      const down = await world.cli(['devices', 'scp', `${DEVICE}:${remote}/big.bin`, back]);
      return { up, down, seconds: (Date.now() - started) / 1000 };
    });
    expect(result.up.code, result.up.stderr).toBe(0);
    expect(result.down.code, result.down.stderr).toBe(0);
    expect(await sha256Of(join(remote, 'big.bin'))).toBe(bigSha);
    expect(await sha256Of(back)).toBe(bigSha);
    // heartbeats: two missed ones (2 s here) would have made it DISCONNECTED
    expect(statuses).not.toContain('DISCONNECTED');
    // status kept flowing: a metrics sample a second arrived during the transfer (allowing for slow moments)
    expect(samples).toBeGreaterThanOrEqual(Math.floor(result.seconds / 4));
  }, 300_000);
});

describe('an interrupted transfer', () => {
  it('upload: the command line killed midway leaves no partial file on the device', async () => {
    const target = world.folder('interrupted-up');
    const cli = world.spawnCli(['devices', 'scp', big, `${DEVICE}:${target}/`]);
    await waitForFile(target, (name) => name.endsWith('.outpost-part'));
    cli.kill('SIGKILL');
    await expect.poll(() => readdirSync(target), { timeout: 20_000 }).toEqual([]);
  }, 60_000);

  it('download: Ctrl-C midway leaves no partial file locally, and the command says so', async () => {
    const target = world.folder('interrupted-down');
    const cli = world.spawnCli(['devices', 'scp', `${DEVICE}:${remote}/big.bin`, `${target}/`]);
    let stderr = '';
    cli.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => cli.once('exit', resolve));
    await waitForFile(target, (name) => name.endsWith('.outpost-part'));
    cli.kill('SIGINT');
    expect(await exited).toBe(1);
    expect(stderr).toMatch(/interrupted: nothing partial was left behind/);
    expect(readdirSync(target)).toEqual([]);
  }, 60_000);
});

describe('permissions and the dashboard REST endpoints', () => {
  it('a key without projects.connect gets PERMISSION_DENIED both ways; with it, it copies', async () => {
    const grant = async (permission: string): Promise<string> => {
      const created = await world.server.admin.request<{ secret: string }>('POST', '/v1/apiKeys', {
        body: { displayName: 'operator', grants: [{ permission, scope: 'projects/files' }] },
      });
      return created.secret;
    };
    const without = await grant('services/devices.outpost/permissions/*');
    const up = await world.cli(['devices', 'scp', big, `${DEVICE}:${remote}/denied/`], { apiKey: without });
    expect(up.code).toBe(1);
    expect(up.stderr).toMatch(
      /PERMISSION_DENIED: missing permission services\/proxies\.outpost\/permissions\/projects\.connect on projects\/files/,
    );
    const down = await world.cli(['devices', 'scp', `${DEVICE}:${remote}/big.bin`, local], { apiKey: without });
    expect(down.stderr).toMatch(/PERMISSION_DENIED/);
    expect(existsSync(join(remote, 'denied'))).toBe(false);

    const connect = await grant('services/proxies.outpost/permissions/projects.connect');
    writeFileSync(join(local, 'small.txt'), 'small\n');
    const allowed = await world.cli(['devices', 'scp', join(local, 'small.txt'), `${DEVICE}:${remote}/allowed/`], {
      apiKey: connect,
    });
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(readFileSync(join(remote, 'allowed', 'small.txt'), 'utf8')).toBe('small\n');
  });

  it('uploads raw bytes into a directory under their name, and downloads one file as raw bytes', async () => {
    const auth = { authorization: `Bearer ${world.cliEnv().OUTPOST_API_KEY}` };
    const base = `${world.server.url}/v1/${DEVICE}`;
    const upload = await fetch(`${base}:upload?path=${encodeURIComponent(`${remote}/dashboard`)}&name=photo.jpg`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/octet-stream' },
      body: 'jpeg bytes',
    });
    expect(upload.status).toBe(200);
    expect(await upload.json()).toEqual({ files: 1, bytes: 10, destination: join(remote, 'dashboard', 'photo.jpg') });
    expect(readFileSync(join(remote, 'dashboard', 'photo.jpg'), 'utf8')).toBe('jpeg bytes');

    const download = await fetch(`${base}:download?path=${encodeURIComponent(`${remote}/dashboard/photo.jpg`)}`, {
      headers: auth,
    });
    expect(download.status).toBe(200);
    expect(download.headers.get('content-disposition')).toBe(
      `attachment; filename="photo.jpg"; filename*=UTF-8''photo.jpg`,
    );
    expect(download.headers.get('content-length')).toBe('10');
    expect(await download.text()).toBe('jpeg bytes');

    const missing = await fetch(`${base}:download?path=${encodeURIComponent(`${remote}/nope`)}`, { headers: auth });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { status: 'NOT_FOUND' } });
  });
});

describe('collect-debug-bundle', () => {
  it('writes a tar.gz of logs, state, system information, pod states and configuration', async () => {
    const file = join(local, 'bundle.tar.gz');
    const result = await world.cli(['devices', 'collect-debug-bundle', DEVICE, '--file', file]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/wrote .*bundle\.tar\.gz/);
    const listing = execFileSync('tar', ['-tzf', file], { encoding: 'utf8' }).split('\n');
    expect(listing).toEqual(
      expect.arrayContaining([
        'outpost-debug-big-box/bundle.json',
        'outpost-debug-big-box/agent/droplet.log',
        'outpost-debug-big-box/agent/state/agent-state.json',
        'outpost-debug-big-box/config/droplet.json',
        'outpost-debug-big-box/system/facts.json',
        'outpost-debug-big-box/pods/status.json',
      ]),
    );
    expect(listing.some((entry) => entry.includes('credential'))).toBe(false);
  });
});
