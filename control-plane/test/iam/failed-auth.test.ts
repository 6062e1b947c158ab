import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { DEFAULT_FAILED_AUTH_LIMITS } from '../../src/iam/failed-auth-limiter.js';
import { startTestServer, TEST_ADMIN_KEY, type TestServer } from '../helpers/test-server.js';

const ALLOWED = DEFAULT_FAILED_AUTH_LIMITS.maxFailures;
const SERVER_BIN = fileURLToPath(new URL('../../bin/outpost-server.js', import.meta.url));

async function get(server: TestServer, headers: Record<string, string>) {
  const res = await fetch(`${server.url}/v1/apiKeys`, { headers });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as unknown };
}

async function withServer(starting: Promise<TestServer>, test: (server: TestServer) => Promise<void>): Promise<void> {
  const server = await starting;
  try {
    await test(server);
  } finally {
    await server.dispose();
  }
}

const wrongKey = (i: number, extra: Record<string, string> = {}) => ({
  authorization: `Bearer opk_nobody${i}_guess`,
  ...extra,
});

describe('failed authentications over HTTP', () => {
  // each test starts its own server: the failures a first attempt counted would limit its retry from the start
  describe('straight from the client', () => {
    it(`answers 429 with Retry-After after ${ALLOWED} wrong keys, and still lets a valid key in`, async () => {
      await withServer(startTestServer(), async (server) => {
        for (let i = 0; i < ALLOWED; i++) {
          const attempt = await get(server, i % 2 === 0 ? wrongKey(i) : { authorization: 'Basic Zm9vOmJhcg==' });
          expect(attempt.status, `attempt ${i + 1}`).toBe(401);
        }
        const limited = await get(server, wrongKey(ALLOWED));
        expect(limited.status).toBe(429);
        expect(limited.body).toMatchObject({ error: { code: 429, status: 'RESOURCE_EXHAUSTED' } });
        expect(Number(limited.retryAfter)).toBeGreaterThanOrEqual(1);
        expect(Number(limited.retryAfter)).toBeLessThanOrEqual(60);

        expect((await get(server, { authorization: `Bearer ${TEST_ADMIN_KEY}` })).status).toBe(200);
        // X-Forwarded-For from a peer that is not a trusted proxy is the client's word: ignored
        expect((await get(server, wrongKey(99, { 'x-forwarded-for': '198.51.100.1' }))).status).toBe(429);
        expect((await get(server, { authorization: `Bearer ${TEST_ADMIN_KEY}` })).status).toBe(200);
      });
    });
  });

  describe('behind a trusted proxy', () => {
    const behindProxy = () => startTestServer({}, { config: { trustedProxies: ['127.0.0.1', '::1'] } });

    it('counts per client address from X-Forwarded-For', async () => {
      await withServer(behindProxy(), async (server) => {
        const from = (client: string) => ({ 'x-forwarded-for': client });
        for (let i = 0; i < ALLOWED; i++) {
          expect((await get(server, wrongKey(i, from('203.0.113.7')))).status).toBe(401);
        }
        expect((await get(server, wrongKey(0, from('203.0.113.7')))).status).toBe(429);
        // an address the client wrote left of the proxy's entry changes nothing
        expect((await get(server, wrongKey(0, from('203.0.113.9, 203.0.113.7')))).status).toBe(429);
        expect((await get(server, wrongKey(0, from('203.0.113.8')))).status).toBe(401);
        expect((await get(server, wrongKey(0))).status).toBe(401);
        expect((await get(server, { authorization: `Bearer ${TEST_ADMIN_KEY}`, ...from('203.0.113.7') })).status).toBe(
          200,
        );
      });
    });
  });
});

describe('the admin secret', () => {
  it('must be at least 32 characters: outpost-server refuses a shorter OUTPOST_ADMIN_KEY', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'outpost-admin-key-'));
    try {
      const run = (adminKey: string) =>
        promisify(execFile)(process.execPath, [SERVER_BIN, '--port', '0', '--data-dir', dataDir], {
          env: { ...process.env, OUTPOST_ADMIN_KEY: adminKey, OUTPOST_LOG_LEVEL: 'silent' },
          timeout: 20_000,
        });
      const refused = await run('x'.repeat(31)).then(
        () => ({ code: 0, stderr: '' }),
        (err: { code: number; stderr: string }) => err,
      );
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('invalid OUTPOST_ADMIN_KEY: must be at least 32 characters');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
