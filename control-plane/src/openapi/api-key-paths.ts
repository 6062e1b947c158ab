import { permissionOf } from '@outpost/shared';
import { NewApiKeySchema, StoredGrantSchema } from '../iam/index.js';
import { json, ok } from './kind-operations.js';
import { addOperation } from './openapi-types.js';
import type { JsonSchema, Operation, PathItem } from './openapi-types.js';
import { schemaRef, zodJsonSchema } from './resource-schemas.js';

const API_KEYS = { service: 'iam.outpost', plural: 'apiKeys' };

/** The schemas of the API-key routes (iam/routes.ts), by component name. */
export function apiKeySchemas(): Record<string, JsonSchema> {
  const grant = zodJsonSchema(StoredGrantSchema, 'output');
  return {
    ApiKey: {
      description: 'An API key as the API shows it; the secret is never part of it.',
      type: 'object',
      properties: {
        name: { type: 'string', description: '`apiKeys/<id>`' },
        displayName: { type: 'string' },
        grants: { type: 'array', items: grant },
        createTime: { type: 'string' },
      },
      required: ['name', 'displayName', 'grants', 'createTime'],
      additionalProperties: false,
    },
    ApiKeyInput: {
      description: 'A new key: grants name permissions and scopes the calling key holds.',
      ...zodJsonSchema(NewApiKeySchema, 'input'),
    },
  };
}

/** `POST|GET /v1/apiKeys`, `GET|DELETE /v1/apiKeys/{id}`: not resources of the engine, written out here. */
export function addApiKeyPaths(paths: Record<string, PathItem>): void {
  const key = schemaRef('ApiKey');
  addOperation(
    paths,
    '/v1/apiKeys',
    'post',
    apiKeyOperation('create', 'Create an API key', {
      requestBody: { required: true, content: json(schemaRef('ApiKeyInput')) },
      responses: ok('The key, and its secret: shown this once only.', {
        type: 'object',
        properties: { apiKey: key, secret: { type: 'string' } },
        required: ['apiKey', 'secret'],
        additionalProperties: false,
      }),
    }),
  );
  addOperation(
    paths,
    '/v1/apiKeys',
    'get',
    apiKeyOperation('list', 'List the API keys', {
      responses: ok('Every key that is not revoked.', {
        type: 'object',
        properties: { apiKeys: { type: 'array', items: key } },
        required: ['apiKeys'],
        additionalProperties: false,
      }),
    }),
  );
  addOperation(
    paths,
    '/v1/apiKeys/{id}',
    'get',
    apiKeyOperation('get', 'Get an API key', { responses: ok('The key.', key) }),
  );
  addOperation(
    paths,
    '/v1/apiKeys/{id}',
    'delete',
    apiKeyOperation('delete', 'Revoke an API key', {
      description: 'Only a key holding every grant of the revoked key may revoke it; its open watch streams end.',
      responses: ok('Revoked.', { type: 'object', maxProperties: 0 }),
    }),
  );
}

function apiKeyOperation(
  verb: 'create' | 'list' | 'get' | 'delete',
  summary: string,
  rest: Omit<Operation, 'operationId' | 'summary' | 'tags'>,
): Operation {
  return {
    operationId: `apiKeys.${verb}`,
    summary,
    tags: ['apiKeys'],
    'x-outpost-permission': `${permissionOf(API_KEYS, verb)} (on *)`,
    ...rest,
  };
}
