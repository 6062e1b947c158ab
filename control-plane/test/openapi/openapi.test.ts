import { get } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { Validator } from '@seriousme/openapi-schema-validator';
import { permissionOf } from '@outpost/shared';
import type { StandardVerb } from '@outpost/shared';
import { collectionPath, resourcePath } from '../../src/openapi/kind-operations.js';
import type { JsonSchema, OpenApiDocument, Operation, PathItem } from '../../src/openapi/openapi-types.js';
import { RawAgent, createDevice } from '../healthchecks/helpers/raw-agent.js';
import { startTestServer, TEST_ADMIN_KEY } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { widgetDefinition } from '../helpers/widgets.js';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const DOC_ID = 'https://outpost.invalid/openapi.json';

let server: TestServer;
let doc: OpenApiDocument;

beforeAll(async () => {
  server = await startTestServer({ resources: [{ def: widgetDefinition }] });
  const res = await fetch(`${server.url}/v1/openapi.json`); // no API key: the document is public
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  doc = (await res.json()) as OpenApiDocument;
}, 60_000);
afterAll(async () => server.dispose());

function operations(): { path: string; method: (typeof METHODS)[number]; operation: Operation }[] {
  return Object.entries(doc.paths).flatMap(([path, item]: [string, PathItem]) =>
    METHODS.flatMap((method) => {
      const operation = item[method];
      return operation ? [{ path, method, operation }] : [];
    }),
  );
}

describe('GET /v1/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document whose references all resolve', async () => {
    const validator = new Validator();
    const result = await validator.validate({ ...structuredClone(doc) }); // a copy: the validator keeps it
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(() => validator.resolveRefs()).not.toThrow();
    const broken = structuredClone(doc) as unknown as { paths: Record<string, unknown> };
    broken.paths['/v1/broken'] = { get: { responses: { '200': { content: {} } } } }; // a response needs a description
    expect((await new Validator().validate(broken)).valid).toBe(false);
    const ids = operations().map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('answers a request that names its ETag with 304', async () => {
    const first = await fetch(`${server.url}/v1/openapi.json`);
    const etag = first.headers.get('etag') ?? '';
    expect(etag).not.toBe('');
    // node:http, not fetch: fetch adds `Cache-Control: no-cache` to a conditional request
    const status = await new Promise<number | undefined>((resolve, reject) => {
      get(`${server.url}/v1/openapi.json`, { headers: { 'if-none-match': etag } }, (res) => {
        res.resume();
        resolve(res.statusCode);
      }).on('error', reject);
    });
    expect(status).toBe(304);
  });

  it('has every registered resource with each standard method it offers, and its schemas', () => {
    const verbs: Record<Exclude<StandardVerb, 'batchGet'>, (def: typeof widgetDefinition) => [string, string][]> = {
      get: (def) => def.patterns.map((p) => [resourcePath(p), 'get']),
      update: (def) =>
        def.patterns.flatMap((p) => [
          [resourcePath(p), 'put'],
          [resourcePath(p), 'patch'],
          [`${collectionPath(p)}:batchUpdate`, 'post'],
        ]),
      delete: (def) => def.patterns.map((p) => [resourcePath(p), 'delete']),
      watch: (def) =>
        def.patterns.flatMap((p) => [
          [`${resourcePath(p)}:watch`, 'post'],
          [`${collectionPath(p)}:watch`, 'post'],
        ]),
      list: (def) => def.patterns.map((p) => [collectionPath(p), 'get']),
      create: (def) =>
        def.patterns.flatMap((p) => [
          [collectionPath(p), 'post'],
          [`${collectionPath(p)}:batchCreate`, 'post'],
        ]),
    };
    const kinds = server.engine.all().map((handle) => handle.def);
    expect(kinds.map((def) => def.plural)).toEqual(
      expect.arrayContaining(['devices', 'widgets', 'plans', 'limits', 'pods']),
    );
    for (const def of kinds) {
      expect(doc.components.schemas[def.kind], def.kind).toBeDefined();
      expect(doc.components.schemas[`${def.kind}Input`], def.kind).toBeDefined();
      for (const [verb, where] of Object.entries(verbs)) {
        const offered = !def.without?.includes(verb as StandardVerb);
        for (const [path, method] of where(def)) {
          const operation = doc.paths[path]?.[method as (typeof METHODS)[number]];
          expect(operation !== undefined, `${method} ${path}`).toBe(offered);
          if (operation) expect(operation['x-outpost-permission']).toBe(permissionOf(def, verb));
        }
      }
      const batchGet = doc.paths[`/v1/${def.plural}:batchGet`]?.get;
      expect(batchGet !== undefined, `${def.plural}:batchGet`).toBe(!def.without?.includes('batchGet'));
    }
  });

  it("has the services' custom methods, the public ones without security, and the remote-access WebSockets", () => {
    const device = '/v1/projects/{project}/regions/{region}/devices/{device}';
    const custom = (path: string, method: (typeof METHODS)[number]): Operation | undefined => doc.paths[path]?.[method];
    for (const verb of [
      'provision',
      'issueCredential',
      'revokeCredential',
      'reboot',
      'shutdown',
      'terminal',
      'portForward',
    ]) {
      expect(
        custom(`${device}:${verb}`, verb === 'terminal' || verb === 'portForward' ? 'get' : 'post'),
        verb,
      ).toBeDefined();
    }
    expect(custom(`${device}:challenge`, 'post')?.security).toEqual([]);
    expect(custom(`${device}:enrollKey`, 'post')?.security).toEqual([]);
    expect(custom('/v1/projects/{project}/regions/{region}/devices:register', 'post')?.security).toEqual([]);
    expect(custom('/v1/projects/{project}/regions/{region}/devices:listProvisioningTokens', 'get')).toBeDefined();
    expect(custom('/v1/planAssignmentRequests:listApprover', 'get')).toBeDefined();
    expect(custom('/v1/projects/{project}/limits/{limit}:migrate', 'post')).toBeDefined();
    expect(custom(`${device}:reboot`, 'post')?.security).toBeUndefined(); // the document's default: an API key
    expect(doc.security).toEqual([{ apiKey: [] }]);
    expect(doc.components.securitySchemes['apiKey']).toMatchObject({ type: 'http', scheme: 'bearer' });
    const accept = operations().find(({ path }) => path.endsWith(':accept'));
    expect(accept?.operation['x-outpost-permission']).toMatch(
      /^services\/.+\/permissions\/planAssignmentRequests\.accept$/,
    );
  });

  /** Why the server does not serve `method path` (ids filled in), or undefined when it reaches a handler. */
  async function unserved(method: string, path: string): Promise<string | undefined> {
    const controller = new AbortController();
    const res = await fetch(server.url + path.replace(/\{[^}]+\}/g, 'x1'), {
      method: method.toUpperCase(),
      headers: { authorization: `Bearer ${TEST_ADMIN_KEY}`, 'content-type': 'application/json' },
      ...(method === 'get' || method === 'delete' ? {} : { body: '{}' }),
      signal: controller.signal,
    });
    const text = res.headers.get('content-type')?.includes('ndjson') ? '' : await res.text();
    controller.abort(); // a watch stream does not end by itself
    const refused = res.status === 501 || (res.status === 404 && text.includes('no endpoint'));
    return refused ? `${method.toUpperCase()} ${path}: ${res.status} ${text}` : undefined;
  }

  it('describes only routes the server serves: every operation reaches its handler', async () => {
    const device = '/v1/projects/{project}/regions/{region}/devices/{device}';
    expect(await unserved('post', `${device}:notAMethod`)).toBeDefined();
    expect(await unserved('get', `${device}:reboot`)).toBeDefined();
    const checked = operations().filter(
      ({ path, operation }) => path !== '/v1/openapi.json' && !operation.responses['101'],
    );
    expect(checked.length).toBeGreaterThan(100);
    const refused: string[] = [];
    for (const { path, method } of checked) {
      const why = await unserved(method, path);
      if (why !== undefined) refused.push(why);
    }
    expect(refused).toEqual([]);
  }, 120_000);
});

describe('round trip: real responses validate against the document', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addFormat('date-time', {
    type: 'string',
    validate: (value) => !Number.isNaN(Date.parse(value)) && /^\d{4}-\d\d-\d\dT/.test(value),
  });
  ajv.addFormat('uri', { type: 'string', validate: (value) => URL.canParse(value) });
  let added = false;

  /** The schema of one response of the document, its references pointing into the document. */
  function responseSchema(path: string, method: (typeof METHODS)[number], status: string): JsonSchema {
    if (!added) {
      ajv.addSchema({ $id: DOC_ID, components: doc.components });
      added = true;
    }
    const operation = doc.paths[path]?.[method];
    const response = operation?.responses[status] ?? operation?.responses['default'];
    if (!response) throw new Error(`no response ${status} of ${method} ${path}`);
    const resolved = '$ref' in response ? doc.components.responses['Error'] : response;
    const schema = resolved?.content?.['application/json']?.schema;
    if (!schema) throw new Error(`no JSON schema for ${status} of ${method} ${path}`);
    return JSON.parse(JSON.stringify(schema).replaceAll('"$ref":"#', `"$ref":"${DOC_ID}#`)) as JsonSchema;
  }

  function expectValid(body: unknown, schema: JsonSchema): void {
    const validate = ajv.compile(schema);
    const valid = validate(body);
    expect(validate.errors ?? [], JSON.stringify(body).slice(0, 2000)).toEqual([]);
    expect(valid).toBe(true);
  }

  const getJson = async (path: string): Promise<{ status: number; body: unknown }> => {
    const res = await fetch(server.url + path, { headers: { authorization: `Bearer ${TEST_ADMIN_KEY}` } });
    return { status: res.status, body: await res.json() };
  };

  const parent = 'projects/roundtrip/regions/eu';
  const name = `${parent}/devices/gw-1`;
  let agent: RawAgent;
  beforeAll(async () => {
    agent = await RawAgent.connect(server, await createDevice(server, name, { site: 'berlin' }));
    // a status report and a metrics sample fill the device's status, as a real agent's do
    agent.send({ type: 'status', seq: 1, deviceInfo: { osVersion: '1.0.0', kernelVersion: '6.1.0' } });
    agent.send({
      type: 'metrics',
      time: new Date().toISOString(),
      cpu: { usagePercent: 12 },
      memory: { totalBytes: 1000, usedBytes: 400 },
      storage: [{ mount: '/', totalBytes: 10_000, usedBytes: 5_000 }],
      uptimeSeconds: 60,
    });
    for (const deadline = Date.now() + 30_000; ;) {
      const { body } = await getJson(`/v1/${name}`);
      const status = (body as { status?: { connectionStatus?: string; deviceInfo?: { usage?: unknown } } }).status;
      if (status?.connectionStatus === 'CONNECTED' && status.deviceInfo?.usage !== undefined) break;
      if (Date.now() > deadline) throw new Error(`the device's status was never stored: ${JSON.stringify(body)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }, 60_000);
  afterAll(async () => agent.close());

  it('a connected device, its metrics history, a list of devices and plans, and an error', async () => {
    const device = await getJson(`/v1/${name}`);
    expect(device.status).toBe(200);
    expect(device.body).toMatchObject({ status: { connectionStatus: 'CONNECTED' } });
    expectValid(device.body, responseSchema('/v1/projects/{project}/regions/{region}/devices/{device}', 'get', '200'));

    const list = await getJson(`/v1/${parent}/devices?includePagingInfo=true`);
    expect(list.status).toBe(200);
    expect((list.body as { devices: unknown[] }).devices).toHaveLength(1);
    expectValid(list.body, responseSchema('/v1/projects/{project}/regions/{region}/devices', 'get', '200'));

    const plans = await getJson('/v1/services/devices.outpost/plans');
    expect(plans.status).toBe(200);
    expectValid(plans.body, responseSchema('/v1/services/{service}/plans', 'get', '200'));

    // the history is written after the device's status: wait for the sample's point
    let history = await getJson(`/v1/${name}/metrics`);
    for (const deadline = Date.now() + 30_000; (history.body as { points?: unknown[] }).points?.length === 0;) {
      if (Date.now() > deadline) throw new Error('the metrics sample never reached the history');
      await new Promise((resolve) => setTimeout(resolve, 20));
      history = await getJson(`/v1/${name}/metrics`);
    }
    expect(history.status).toBe(200);
    expectValid(
      history.body,
      responseSchema('/v1/projects/{project}/regions/{region}/devices/{device}/metrics', 'get', '200'),
    );

    const missing = await getJson(`/v1/${parent}/devices/nope`);
    expect(missing.status).toBe(404);
    expectValid(missing.body, responseSchema('/v1/projects/{project}/regions/{region}/devices/{device}', 'get', '404'));
  }, 60_000);

  it('API keys: a list and a new key', async () => {
    const listed = await getJson('/v1/apiKeys');
    expect(listed.status).toBe(200);
    expectValid(listed.body, responseSchema('/v1/apiKeys', 'get', '200'));
    const created = await fetch(`${server.url}/v1/apiKeys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_ADMIN_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ displayName: 'reader', grants: [{ permission: '*', scope: 'projects/roundtrip' }] }),
    });
    expect(created.status).toBe(200);
    expectValid(await created.json(), responseSchema('/v1/apiKeys', 'post', '200'));
  });

  /** The first non-empty line of an NDJSON answer to `POST path` with `body`. */
  async function firstLine(path: string, body: unknown): Promise<unknown> {
    const controller = new AbortController();
    const res = await fetch(server.url + path, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_ADMIN_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: controller.signal,
    });
    expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    try {
      while (!/\S\n/.test(text)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += value;
      }
    } finally {
      controller.abort();
    }
    const line = text.split('\n').find((l) => l.trim() !== '');
    return JSON.parse(line ?? 'null') as unknown;
  }

  function ndjsonSchema(path: string): JsonSchema {
    const schema = doc.paths[path]?.post?.responses['200'];
    const content = schema && 'content' in schema ? schema.content?.['application/x-ndjson']?.schema : undefined;
    if (!content) throw new Error(`no NDJSON schema of POST ${path}`);
    responseSchema(path, 'post', 'default'); // adds the document to ajv
    return JSON.parse(JSON.stringify(content).replaceAll('"$ref":"#', `"$ref":"${DOC_ID}#`)) as JsonSchema;
  }

  it('the first messages of a watch of one device and of a collection', async () => {
    const one = await firstLine(`/v1/${name}:watch`, {});
    expect(one).toMatchObject({ change: { current: { device: { name } } } });
    expectValid(one, ndjsonSchema('/v1/projects/{project}/regions/{region}/devices/{device}:watch'));
    const path = '/v1/projects/{project}/regions/{region}/devices:watch';
    const stateful = await firstLine('/v1/projects/roundtrip/regions/eu/devices:watch', {});
    expect(stateful).toMatchObject({ deviceChanges: [{ added: { device: { name } } }] });
    expectValid(stateful, ndjsonSchema(path));
    const stateless = await firstLine('/v1/projects/roundtrip/regions/eu/devices:watch', { type: 'STATELESS' });
    expect(stateless).toMatchObject({ deviceChanges: [{ current: { device: { name } } }] });
    expectValid(stateless, ndjsonSchema(path));
  }, 60_000);

  it('the schemas are strict: a response with a field the document does not know fails', () => {
    const schema = responseSchema('/v1/projects/{project}/regions/{region}/devices/{device}', 'get', '200');
    const validate = ajv.compile(schema);
    expect(validate({ name: 'projects/p/regions/eu/devices/d', spec: { notAField: 1 } })).toBe(false);
    expect(validate({ error: { code: 'x' } })).toBe(false);
  });
});
