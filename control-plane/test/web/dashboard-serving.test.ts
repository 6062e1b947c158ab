/**
 * The dashboard as the browser gets it from a real control plane: the page at `/`, its modules and styles under
 * `/dashboard/`, every module the page imports present, and none of the API's routes shadowed.
 */
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardAssetDirectory } from '../../src/web/asset-directory.js';
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

  it('serves every asset with its type, and each module a module imports exists', async () => {
    const files = assetFiles();
    expect(files).toEqual(expect.arrayContaining(['index.html', 'app.js', 'dashboard.css', 'api/client.js']));
    let imports = 0;
    for (const file of files) {
      const response = await get(`/dashboard/${file}`);
      expect(response.status, file).toBe(200);
      const type = response.headers.get('content-type') ?? '';
      if (file.endsWith('.js')) expect(type, file).toMatch(/^(text|application)\/javascript/);
      if (file.endsWith('.css')) expect(type, file).toMatch(/^text\/css/);
      const text = await response.text();
      if (!file.endsWith('.js')) continue;
      for (const [, specifier = ''] of text.matchAll(/^import [^;]*? from '([^']+)';$/gms)) {
        expect(specifier, `${file} imports ${specifier}`).toMatch(/^\.\.?\//);
        const target = new URL(specifier, `http://x/dashboard/${file}`).pathname;
        const imported = await get(target);
        expect(imported.status, `${file} imports ${target}`).toBe(200);
        imports++;
        await imported.arrayBuffer();
      }
    }
    expect(imports).toBeGreaterThan(files.length);
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
    expect(await (await get('/healthz')).json()).toEqual({ ok: true });
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
