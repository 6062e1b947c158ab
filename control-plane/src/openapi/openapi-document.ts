import { createRequire } from 'node:module';
import type { ResourceDefinition } from '@outpost/shared';
import type { CustomMethod } from '../resources/http/custom-method.js';
import { addApiKeyPaths, apiKeySchemas } from './api-key-paths.js';
import { artifactRoutes } from './artifact-paths.js';
import { COMMON_PARAMETERS, ERROR_BODY_SCHEMA, ERROR_RESPONSE } from './common-components.js';
import { addCustomMethodPaths } from './custom-method-paths.js';
import { addDocumentedRoutes } from './documented-route.js';
import { metricsHistoryRoutes } from './metrics-paths.js';
import type { OpenApiDocument, PathItem } from './openapi-types.js';
import { addRemoteAccessPaths } from './remote-access-paths.js';
import { addResourcePaths } from './resource-paths.js';
import { readSchema, readSchemaName, writeSchema, writeSchemaName } from './resource-schemas.js';
import { transferRoutes } from './transfer-paths.js';

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

export const OPENAPI_PATH = '/v1/openapi.json';

export interface OpenApiSources {
  /** the registered resources (ResourceEngine.all()) */
  definitions: readonly ResourceDefinition[];
  /** the custom methods the resource router serves */
  customMethods: readonly CustomMethod[];
}

const DESCRIPTION = [
  'The REST API of the Outpost control plane, generated from its resource definitions at start.',
  'Every resource has the standard methods (get, batchGet, list, watch, create, update, delete) in the',
  'grpc-gateway mapping: the resource is the JSON body of create and update, every other request field is a',
  'query parameter (lowerCamel; snake_case accepted; dotted paths for nested fields). Unknown query parameters',
  'are refused. A `-` segment in a parent matches every value. Errors share one body (`Error`).',
].join(' ');

/** The OpenAPI 3.1 document of the resource API. */
export function openApiDocument(sources: OpenApiSources): OpenApiDocument {
  const paths: Record<string, PathItem> = {};
  addOpenApiItself(paths);
  const schemas: OpenApiDocument['components']['schemas'] = { Error: ERROR_BODY_SCHEMA, ...apiKeySchemas() };
  for (const def of sources.definitions) {
    for (const [name, schema] of [
      [readSchemaName(def), readSchema(def)],
      [writeSchemaName(def), writeSchema(def)],
    ] as const) {
      if (schemas[name]) throw new Error(`openapi: two schemas named ${name}`);
      schemas[name] = schema;
    }
    addResourcePaths(paths, def);
  }
  addCustomMethodPaths(paths, sources.definitions, sources.customMethods);
  addRemoteAccessPaths(paths);
  addApiKeyPaths(paths);
  addDocumentedRoutes(paths, [...metricsHistoryRoutes(), ...transferRoutes(), ...artifactRoutes()]);
  return {
    openapi: '3.1.0',
    info: { title: 'Outpost API', version, description: DESCRIPTION },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    security: [{ apiKey: [] }],
    tags: tagsOf(sources.definitions, paths),
    paths,
    components: {
      schemas,
      parameters: COMMON_PARAMETERS,
      responses: { Error: ERROR_RESPONSE },
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'An Outpost API key: `Authorization: Bearer <API key>` (README "API keys and permissions").',
        },
      },
    },
  };
}

function addOpenApiItself(paths: Record<string, PathItem>): void {
  paths[OPENAPI_PATH] = {
    get: {
      operationId: 'openapi.get',
      summary: 'This document',
      description: 'Public: it describes the API, not its data.',
      tags: ['openapi'],
      security: [],
      responses: {
        '200': {
          description: 'The OpenAPI 3.1 document.',
          content: { 'application/json': { schema: { type: 'object' } } },
        },
      },
    },
  };
}

function tagsOf(definitions: readonly ResourceDefinition[], paths: Record<string, PathItem>): OpenApiDocument['tags'] {
  const kinds = new Map(definitions.map((def) => [def.plural, `${def.kind} (${def.service})`]));
  const used = new Set(
    Object.values(paths).flatMap((item) =>
      Object.entries(item).flatMap(([key, value]) =>
        key === 'parameters' ? [] : ((value as { tags?: string[] }).tags ?? []),
      ),
    ),
  );
  return [...used].sort().map((name) => ({ name, description: kinds.get(name) ?? name }));
}
