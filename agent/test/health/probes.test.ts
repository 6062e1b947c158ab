import { execFileSync } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { createServer as createUnixServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ProbeSpec } from '@outpost/shared';
import { runProbe } from '../../src/health/probes/run-probe.js';
import { useTempDirs } from '../helpers/temp-dir.js';
import { startGrpcHealthServer } from './helpers/grpc-health-server.js';
import { closedPort, startHttpTarget, startTcpTarget } from './helpers/targets.js';

const tempDir = useTempDirs();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((close) => close()));
});

const probe = (spec: ProbeSpec, timeoutMs = 5_000) => runProbe(spec, new AbortController().signal, timeoutMs);
/** CI sets CI=true (so do most CI services); there a test must not skip for want of a tool CI installs. */
const runsUnderCi = (env: NodeJS.ProcessEnv): boolean => !['', '0', 'false'].includes(env['CI'] ?? '');

describe('HTTP probe (real HTTP server)', () => {
  it('checks the status range, the method and the body', async () => {
    const seen: string[] = [];
    const target = await startHttpTarget((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      if (req.url === '/ok') res.end('all systems go');
      else res.writeHead(503).end('maintenance');
    });
    cleanups.push(target.close);
    const url = (path: string) => `http://127.0.0.1:${target.port}${path}`;

    expect(await probe({ type: 'HTTP', http: { url: url('/ok') } })).toEqual({
      healthy: true,
      message: `GET ${url('/ok')}: HTTP 200`,
    });
    expect(await probe({ type: 'HTTP', http: { url: url('/down') } })).toEqual({
      healthy: false,
      message: `GET ${url('/down')}: HTTP 503, expected 200-399`,
    });
    expect(
      (
        await probe({
          type: 'HTTP',
          http: { url: url('/down'), method: 'HEAD', expectedStatus: { min: 500, max: 503 } },
        })
      ).healthy,
    ).toBe(true);
    expect((await probe({ type: 'HTTP', http: { url: url('/ok'), bodyContains: 'go' } })).healthy).toBe(true);
    expect(await probe({ type: 'HTTP', http: { url: url('/ok'), bodyContains: 'stop' } })).toMatchObject({
      healthy: false,
      message: expect.stringContaining('body does not contain "stop"'),
    });
    expect(seen).toEqual(['GET /ok', 'GET /down', 'HEAD /down', 'GET /ok', 'GET /ok']);
  });

  it('fails with the connection error when nothing listens', async () => {
    const port = await closedPort();
    expect(await probe({ type: 'HTTP', http: { url: `http://127.0.0.1:${port}/` } })).toMatchObject({
      healthy: false,
      message: expect.stringContaining('ECONNREFUSED'),
    });
  });
});

describe('TCP probe (real listener)', () => {
  it('is healthy when the port accepts a connection and fails when it is closed', async () => {
    const target = await startTcpTarget();
    cleanups.push(target.close);
    expect(await probe({ type: 'TCP', tcp: { host: '127.0.0.1', port: target.port } })).toEqual({
      healthy: true,
      message: `127.0.0.1:${target.port} accepts connections`,
    });
    const port = await closedPort();
    expect(await probe({ type: 'TCP', tcp: { host: '127.0.0.1', port } })).toMatchObject({
      healthy: false,
      message: expect.stringMatching(/^cannot connect to 127\.0\.0\.1:\d+: .*ECONNREFUSED/),
    });
  });
});

describe('gRPC probe (real gRPC server with grpc.health.v1)', () => {
  it('asks Health/Check for the server or one service and is healthy only on SERVING', async () => {
    const server = await startGrpcHealthServer();
    cleanups.push(server.close);
    server.statuses.set('db', 'NOT_SERVING');
    const grpc = (service?: string): ProbeSpec => ({
      type: 'GRPC',
      grpc: { host: '127.0.0.1', port: server.port, ...(service === undefined ? {} : { service }) },
    });
    expect(await probe(grpc())).toEqual({ healthy: true, message: `127.0.0.1:${server.port} is SERVING` });
    expect(await probe(grpc('db'))).toEqual({
      healthy: false,
      message: `127.0.0.1:${server.port} service "db" is NOT_SERVING`,
    });
    server.statuses.set('db', 'SERVING');
    expect((await probe(grpc('db'))).healthy).toBe(true);
    expect(await probe(grpc('cache'))).toMatchObject({
      healthy: false,
      message: expect.stringContaining('does not know this service'),
    });
    expect(server.requests.map((r) => r.service)).toEqual(['', 'db', 'db', 'cache']);
  });

  it('tells a server without the health service, and an unreachable one', async () => {
    const bare = await startGrpcHealthServer({ health: false });
    cleanups.push(bare.close);
    expect(await probe({ type: 'GRPC', grpc: { host: '127.0.0.1', port: bare.port } })).toEqual({
      healthy: false,
      message: `127.0.0.1:${bare.port} offers no grpc.health.v1 health service`,
    });
    const port = await closedPort();
    expect(await probe({ type: 'GRPC', grpc: { host: '127.0.0.1', port } }, 2_000)).toMatchObject({ healthy: false });
  });
});

describe('ICMP probe (the system ping)', () => {
  it('pings 127.0.0.1 (needs iputils-ping: skipped without it, except under CI, which installs it)', async (ctx) => {
    const which = (() => {
      try {
        return execFileSync('sh', ['-c', 'command -v ping'], { encoding: 'utf8' }).trim();
      } catch {
        return '';
      }
    })();
    if (which === '' && !runsUnderCi(process.env)) {
      // the default reporter shows a skip only as a count: say why on stderr too
      const why = 'the ping command is not installed here (apt-get install iputils-ping); under CI=true it is required';
      console.warn(`ICMP probe test skipped: ${why}`);
      ctx.skip(why);
    }
    expect(which, 'the ICMP check needs the ping command (CI=true requires it): apt-get install iputils-ping').not.toBe(
      '',
    );
    expect(await probe({ type: 'ICMP', icmp: { host: '127.0.0.1' } })).toEqual({
      healthy: true,
      message: '127.0.0.1 answers ping',
    });
  });

  it('fails with a clear message where ping is not installed', async () => {
    const path = process.env['PATH'];
    process.env['PATH'] = await tempDir();
    try {
      expect(await probe({ type: 'ICMP', icmp: { host: '127.0.0.1' } })).toEqual({
        healthy: false,
        message: 'cannot ping: the ping command is not installed on this device (install iputils-ping)',
      });
    } finally {
      process.env['PATH'] = path;
    }
  });
});

describe('command probe (real processes)', () => {
  it('is healthy on exit 0 and tells the exit status and last output otherwise', async () => {
    expect(await probe({ type: 'COMMAND', command: { argv: ['true'] } })).toEqual({
      healthy: true,
      message: 'true exited 0',
    });
    expect(
      await probe({ type: 'COMMAND', command: { argv: ['sh', '-c', 'echo checking; echo disk full >&2; exit 3'] } }),
    ).toEqual({ healthy: false, message: 'sh exited 3: checking | disk full' });
    expect(await probe({ type: 'COMMAND', command: { argv: ['/nonexistent/check'] } })).toMatchObject({
      healthy: false,
      message: expect.stringMatching(/^cannot run \/nonexistent\/check: .*ENOENT/),
    });
  });
});

describe('device file probe (real files)', () => {
  it('checks that the path exists and is of the expected type', async () => {
    const dir = await tempDir();
    const file = join(dir, 'file');
    await writeFile(file, 'x');
    await mkdir(join(dir, 'sub'));
    await symlink(file, join(dir, 'link'));
    const socketPath = join(dir, 'sock');
    const unix = createUnixServer();
    await new Promise<void>((resolve) => unix.listen(socketPath, resolve));
    cleanups.push(() => new Promise((resolve) => unix.close(() => resolve())));
    const check = (path: string, type?: 'FILE' | 'DIRECTORY' | 'CHARACTER_DEVICE' | 'SOCKET' | 'SYMLINK') =>
      probe({ type: 'DEVICE_FILE', deviceFile: { path, ...(type === undefined ? {} : { type }) } });

    expect(await check('/dev/null', 'CHARACTER_DEVICE')).toEqual({
      healthy: true,
      message: '/dev/null is present (character device)',
    });
    expect((await check(file, 'FILE')).healthy).toBe(true);
    expect((await check(join(dir, 'sub'))).healthy).toBe(true);
    expect((await check(join(dir, 'link'), 'SYMLINK')).healthy).toBe(true);
    expect((await check(join(dir, 'link'), 'FILE')).healthy).toBe(true); // followed
    expect((await check(socketPath, 'SOCKET')).healthy).toBe(true);
    expect(await check(join(dir, 'sub'), 'FILE')).toEqual({
      healthy: false,
      message: `${join(dir, 'sub')} is directory, expected file`,
    });
    expect(await check(join(dir, 'missing'))).toEqual({
      healthy: false,
      message: `${join(dir, 'missing')} does not exist`,
    });
  });
});
