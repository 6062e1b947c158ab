import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_CONNECT_PATH, DEVICE_PATTERN } from '@outpost/shared';
import { collectionPath, resourcePath } from '../../src/openapi/kind-operations.js';
import type { OpenApiDocument, Operation } from '../../src/openapi/openapi-types.js';
import { startTestServer, TEST_ADMIN_KEY } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { widgetDefinition } from '../helpers/widgets.js';
import {
  customMethodRoutes,
  documentedParameters,
  expressRoutes,
  transferRoutes,
  undocumented,
} from './mounted-routes.js';
import type { Route } from './mounted-routes.js';

/**
 * The reverse of openapi.test.ts's "describes only routes the server serves": every /v1 route the server mounts
 * is in the document. The standard methods of every kind are checked there; here what else the server mounts.
 * Outside /v1 (not the API): /healthz, the Prometheus /metrics, the dashboard's files.
 */
let server: TestServer;
let doc: OpenApiDocument;

beforeAll(async () => {
  server = await startTestServer({ resources: [{ def: widgetDefinition }] });
  doc = (await (await fetch(`${server.url}/v1/openapi.json`)).json()) as OpenApiDocument;
}, 60_000);
afterAll(async () => server.dispose());

const device = resourcePath(DEVICE_PATTERN);

/**
 * WebSocket upgrades are taken by the HTTP server's 'upgrade' listeners (agent-gateway.ts, and through it
 * remote-access-endpoint.ts), not by Express: no table lists them, so they are listed here. The document has
 * each as a GET answered 101 (and /internal/cluster:relay, between replicas, is not part of the API).
 */
const WEBSOCKETS: Route[] = [`get ${AGENT_CONNECT_PATH}`, `get ${device}:terminal`, `get ${device}:portForward`];

describe('every route the server mounts is in the OpenAPI document', () => {
  it("Express's routes, the transfer endpoints and the custom methods", () => {
    const routes = expressRoutes(server.mounted.app);
    // what the walk must find, so that a walk that finds nothing cannot pass
    expect(routes).toEqual(
      expect.arrayContaining([
        'get /v1/openapi.json',
        'delete /v1/apiKeys/{id}',
        'put /v1/artifacts',
        'head /v1/artifacts/{sha256}',
        `get ${device}/metrics`,
      ]),
    );
    const definitions = server.engine.all().map((handle) => handle.def);
    const custom = customMethodRoutes(server.mounted.customMethods, definitions);
    expect(custom).toContain('get /v1/planAssignmentRequests:listApprover');
    expect(undocumented(doc, [...routes, ...transferRoutes(), ...custom])).toEqual([]);
  });

  it('the WebSocket endpoints, as GETs answered 101', () => {
    for (const route of WEBSOCKETS) {
      const [method = '', path = ''] = route.split(' ');
      expect(doc.paths[path]?.[method as 'get']?.responses['101'], route).toBeDefined();
    }
  });

  it('a route the document lacks is found', () => {
    const app = express();
    app.use(express.Router().get('/v1/notDocumented/:id', (_req, res) => res.end()));
    app.put('/v1/artifacts', (_req, res) => res.end());
    app.get('/healthz', (_req, res) => res.end());
    const routes = expressRoutes(app);
    expect(routes).toEqual(['get /v1/notDocumented/{id}', 'put /v1/artifacts']);
    expect(undocumented(doc, routes)).toEqual(['get /v1/notDocumented/{id}']);
    const prefixed = express();
    prefixed.use(
      '/v1',
      express.Router().get('/hidden', (_req, res) => res.end()),
    );
    expect(() => expressRoutes(prefixed)).toThrow(/mounted under a prefix/);
  });
});

describe('every query parameter a route takes is in the document', () => {
  /** What the server answers an unknown query parameter of `method path`: the parameters it takes, if it says. */
  async function takenParameters(method: string, path: string): Promise<string[] | undefined> {
    const controller = new AbortController();
    const res = await fetch(`${server.url}${path.replace(/\{[^}]+\}/g, 'x1')}?zzUnknown=1`, {
      method: method.toUpperCase(),
      headers: { authorization: `Bearer ${TEST_ADMIN_KEY}`, 'content-type': 'application/json' },
      ...(method === 'get' || method === 'delete' || method === 'head' ? {} : { body: '{}' }),
      signal: controller.signal,
    });
    const body = res.headers.get('content-type')?.startsWith('application/json') ? await res.json() : undefined;
    controller.abort(); // a stream does not end by itself
    const message = (body as { error?: { message?: unknown } } | undefined)?.error?.message;
    const listed = /unknown query parameter "zzUnknown" \((?:allowed: )?([^)]*)\)/.exec(String(message))?.[1];
    if (listed === undefined) return undefined;
    return listed === 'none' ? [] : listed.split(', ');
  }

  it('the batch methods refuse every query parameter: their whole request is the body', async () => {
    for (const collection of widgetDefinition.patterns.map(collectionPath)) {
      for (const verb of ['batchCreate', 'batchUpdate']) {
        expect(await takenParameters('post', `${collection}:${verb}`), verb).toEqual([]);
      }
    }
  });

  it('the parameters each route names when it refuses an unknown one are the ones documented', async () => {
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      (['get', 'put', 'post', 'delete', 'patch'] as const).flatMap((method) => {
        const operation: Operation | undefined = item[method];
        return operation && !operation.responses['101'] ? [{ path, method, operation }] : [];
      }),
    );
    const mismatches: string[] = [];
    let compared = 0;
    for (const { path, method, operation } of operations) {
      const taken = await takenParameters(method, path);
      if (taken === undefined) continue;
      compared++;
      // a nested parameter (`cas.fieldMask`, `responseMask.bodyMask`) is taken under its first segment
      const documented = new Set(
        documentedParameters(doc, operation.parameters).map((parameter) => parameter.name.split('.')[0]),
      );
      if ([...documented].sort().join() !== [...new Set(taken)].sort().join()) {
        mismatches.push(`${method} ${path}: takes ${taken.join(', ')}; documents ${[...documented].join(', ')}`);
      }
    }
    expect(compared).toBeGreaterThan(50);
    expect(mismatches).toEqual([]);
  }, 180_000);
});
