/**
 * Issue 23, artifacts: garbage collection deletes no artifact that is being downloaded (here, from the same
 * server; test/integration/cluster-artifacts.test.ts covers another replica's downloads), and the artifact
 * routes answer If-None-Match with 304.
 */
import { existsSync } from 'node:fs';
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_ADMIN_KEY } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

let server: TestServer;
const auth = { authorization: `Bearer ${TEST_ADMIN_KEY}` };

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server.dispose());

async function upload(bytes: Buffer): Promise<string> {
  const res = await fetch(`${server.url}/v1/artifacts`, { method: 'PUT', headers: auth, body: bytes });
  expect(res.status).toBe(200);
  return ((await res.json()) as { sha256: string }).sha256;
}

async function collect(): Promise<string[]> {
  const res = await fetch(`${server.url}/v1/artifacts:collectGarbage`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ minAgeSeconds: 0 }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { removed: { sha256: string }[] }).removed.map((r) => r.sha256);
}

describe('artifact downloads', () => {
  it('keep their artifact from garbage collection until they end', async () => {
    // larger than what the sockets buffer, so that the download stays open while its reader waits
    const sha256 = await upload(randomBytes(48 << 20));
    const download = await new Promise<http.IncomingMessage>((resolve, reject) =>
      http.get(`${server.url}/v1/artifacts/${sha256}`, { headers: auth }, resolve).on('error', reject),
    );
    expect(download.statusCode).toBe(200);
    download.pause();
    expect(await collect()).not.toContain(sha256);
    expect(existsSync(join(server.dataDir, 'artifacts', sha256))).toBe(true);

    download.destroy();
    await expect.poll(() => collect(), { timeout: 30_000, interval: 100 }).toContain(sha256);
    expect(existsSync(join(server.dataDir, 'artifacts', sha256))).toBe(false);
  }, 60_000);

  it('answer a matching If-None-Match with 304 and no body, and another tag with the artifact', async () => {
    const bytes = randomBytes(10_000);
    const sha256 = await upload(bytes);
    const url = `${server.url}/v1/artifacts/${sha256}`;
    for (const tag of [`"${sha256}"`, `W/"${sha256}"`, `"other", "${sha256}"`, '*']) {
      const res = await fetch(url, { headers: { ...auth, 'if-none-match': tag } });
      expect(res.status, tag).toBe(304);
      expect(res.headers.get('etag')).toBe(`"${sha256}"`);
      expect((await res.arrayBuffer()).byteLength).toBe(0);
    }
    const other = await fetch(url, { headers: { ...auth, 'if-none-match': '"other"' } });
    expect(other.status).toBe(200);
    expect(Buffer.from(await other.arrayBuffer()).equals(bytes)).toBe(true);
  });
});
