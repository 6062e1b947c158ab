/**
 * The dashboard as the browser gets it from a real control plane: the page at `/`, its bundled script and style
 * under `/dashboard/`, every chunk a module imports present, the first visit's JavaScript within its budget, and
 * none of the API's routes shadowed.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardAssetDirectory } from '../../src/web/asset-directory.js';
import { dashboardRoutes } from '../../src/web/dashboard-routes.js';
import { startTestServer, TEST_ADMIN_KEY } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server.dispose());

const get = (path: string, init: RequestInit = {}): Promise<Response> => fetch(`${server.url}${path}`, init);

/** Every file under the asset folder, as paths relative to it. */
function assetFiles(dir = dashboardAssetDirectory()): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dashboardAssetDirectory(), join(entry.parentPath, entry.name)));
}

/** The relative modules a bundled module imports (`from"./x.js"`, and `import("./x.js")` unless dynamic: false). */
function importsOf(text: string, options: { dynamic: boolean } = { dynamic: true }): string[] {
  const found = [...text.matchAll(/(?:from|import)\s*"(\.\.?\/[^"]+)"/g)].map((m) => m[1] ?? '');
  if (options.dynamic) found.push(...[...text.matchAll(/import\(\s*"(\.\.?\/[^"]+)"\s*\)/g)].map((m) => m[1] ?? ''));
  return found;
}

describe('the dashboard page and its files', () => {
  it('GET / is the page, with no API key, and a policy that allows only its own files', async () => {
    const response = await get('/');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await response.text();
    expect(html).toContain('<script type="module" src="/dashboard/app.js"></script>');
    expect(html).toContain('href="/dashboard/dashboard.css"');
  });

  it('serves every built file with its type; each chunk a module imports exists', async () => {
    const files = assetFiles();
    expect(files).toEqual(expect.arrayContaining(['index.html', 'app.js', 'dashboard.css']));
    for (const file of files) {
      const response = await get(`/dashboard/${file}`);
      expect(response.status, file).toBe(200);
      const type = response.headers.get('content-type') ?? '';
      if (file.endsWith('.js')) expect(type, file).toMatch(/^(text|application)\/javascript/);
      if (file.endsWith('.css')) expect(type, file).toMatch(/^text\/css/);
      const text = await response.text();
      if (!file.endsWith('.js')) continue;
      for (const specifier of importsOf(text)) {
        expect(specifier, `${file} imports ${specifier}`).toMatch(/^\.\.?\//);
        const imported = await get(new URL(specifier, `http://x/dashboard/${file}`).pathname);
        expect(imported.status, `${file} imports ${specifier}`).toBe(200);
        await imported.arrayBuffer();
      }
    }
  });

  it('the JavaScript a first visit loads (app.js and what it imports statically) is at most 150 KB gzipped', () => {
    const dir = dashboardAssetDirectory();
    const seen = new Set<string>();
    const visit = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = readFileSync(join(dir, file), 'utf8');
      for (const specifier of importsOf(text, { dynamic: false })) visit(join(dirname(file), specifier));
    };
    visit('app.js');
    const gzipped = [...seen].reduce((sum, file) => sum + gzipSync(readFileSync(join(dir, file))).length, 0);
    expect(gzipped).toBeLessThanOrEqual(150 * 1024);
  });

  it('answers 503, saying so, where the dashboard is not built', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'outpost-no-dashboard-'));
    const app = express();
    app.use(dashboardRoutes(empty));
    const listener = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => listener.once('listening', resolve));
    try {
      const response = await fetch(`http://127.0.0.1:${(listener.address() as AddressInfo).port}/`);
      expect(response.status).toBe(503);
      expect(await response.text()).toContain('The dashboard is not built');
    } finally {
      await new Promise((resolve) => listener.close(resolve));
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('a missing asset and other methods fall through to the API 404, whose body is the API error', async () => {
    for (const [path, method] of [
      ['/dashboard/nope.js', 'GET'],
      ['/dashboard/../package.json', 'GET'],
      ['/', 'POST'],
    ] as const) {
      const response = await get(path, { method });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(await response.json()).toMatchObject({ error: { code: 404, status: 'NOT_FOUND' } });
    }
  });

  it('shadows none of the API routes: /healthz, /metrics, /v1 and the artifacts answer as before', async () => {
    // the health answer, not the page (on PostgreSQL it also describes this replica's part in the cluster)
    const health = await get('/healthz');
    expect(health.status).toBe(200);
    expect(health.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await health.json()).toMatchObject({ ok: true });
    const metrics = await get('/metrics', { headers: { authorization: `Bearer ${TEST_ADMIN_KEY}` } });
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('# TYPE');
    const unauthenticated = await get('/v1/osVersions');
    expect(unauthenticated.status).toBe(401);
    expect(await unauthenticated.json()).toMatchObject({ error: { status: 'UNAUTHENTICATED' } });
    const listed = await get('/v1/osVersions', { headers: { authorization: `Bearer ${TEST_ADMIN_KEY}` } });
    expect(listed.status).toBe(200);
    const artifact = await get(`/v1/artifacts/${'0'.repeat(64)}`, {
      headers: { authorization: `Bearer ${TEST_ADMIN_KEY}` },
    });
    expect(artifact.status).toBe(404);
    expect(await artifact.json()).toMatchObject({ error: { status: 'NOT_FOUND' } });
  });
});
