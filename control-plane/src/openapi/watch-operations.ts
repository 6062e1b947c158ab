import { changesKey } from '@outpost/shared';
import type { ResourceDefinition } from '@outpost/shared';
import { ERROR_BODY_SCHEMA, NDJSON, errorResponses } from './common-components.js';
import { json, standardOperation } from './kind-operations.js';
import type { KindAtPattern, PlacedOperation } from './kind-operations.js';
import type { JsonSchema, Operation, Parameter } from './openapi-types.js';

/** `:watch` on a name and on a collection (README "Watch"): NDJSON streams, one message per line. */
export function watchOperations(at: KindAtPattern): PlacedOperation[] {
  const { def, named, collection, stem, resource } = at;
  const change = changeMessageSchema(def, resource);
  return [
    {
      path: `${named}:watch`,
      method: 'post',
      operation: standardOperation(def, 'watch', `${stem}.watch`, `Watch a ${def.kind}`, {
        description: `Its current state first, then every change; a failure ends the stream with an error line. ${EITHER}`,
        parameters: asQueryParameters(WATCH_ONE_REQUEST),
        requestBody: { content: json(WATCH_ONE_REQUEST) },
        responses: ndjson('One `{"change": ...}` per line', {
          type: 'object',
          properties: { change },
          required: ['change'],
          additionalProperties: false,
        }),
      }),
    },
    {
      path: `${collection}:watch`,
      method: 'post',
      operation: standardOperation(def, 'watch', `${stem}.watchCollection`, `Watch ${def.plural}`, {
        description: `STATEFUL (default) or STATELESS watch of the collection. ${EITHER}`,
        parameters: asQueryParameters(WATCH_COLLECTION_REQUEST),
        requestBody: { content: json(WATCH_COLLECTION_REQUEST) },
        responses: ndjson(`One watch response per line, its changes under \`${changesKey(def)}\``, {
          type: 'object',
          properties: {
            [changesKey(def)]: { type: 'array', items: change },
            isCurrent: { type: 'boolean' },
            pageTokenChange: {
              type: 'object',
              properties: { prevPageToken: { type: 'string' }, nextPageToken: { type: 'string' } },
            },
            resumeToken: { type: 'string' },
            snapshotSize: { type: 'integer' },
            isSoftReset: { type: 'boolean' },
            isHardReset: { type: 'boolean' },
          },
          required: [changesKey(def)],
          additionalProperties: false,
        }),
      }),
    },
  ];
}

const ndjson = (what: string, line: JsonSchema): Operation['responses'] => ({
  '200': {
    description: `NDJSON. ${what}; empty lines keep the connection alive; an error ends the stream with an error line.`,
    content: { [NDJSON]: { schema: { oneOf: [line, ERROR_BODY_SCHEMA] } } },
  },
  ...errorResponses(),
});

/** A change: exactly one of added, modified, removed, current, the resource under the kind's singular name. */
function changeMessageSchema(def: ResourceDefinition, resource: JsonSchema): JsonSchema {
  const variant = (key: string, properties: JsonSchema, required: string[]): JsonSchema => ({
    type: 'object',
    properties: {
      [key]: { type: 'object', properties, required, additionalProperties: false },
    },
    required: [key],
    additionalProperties: false,
  });
  const index = { type: 'integer' };
  return {
    oneOf: [
      variant('added', { [def.singular]: resource, viewIndex: index }, [def.singular]),
      variant(
        'modified',
        {
          name: { type: 'string' },
          [def.singular]: resource,
          fieldMask: { type: 'string', description: 'The changed paths, comma-separated.' },
          previousViewIndex: index,
          viewIndex: index,
        },
        ['name', def.singular],
      ),
      variant('removed', { name: { type: 'string' }, viewIndex: index }, ['name']),
      variant('current', { [def.singular]: resource }, [def.singular]),
    ],
  };
}

const EITHER = "The request's fields are its JSON body or query parameters (the body's win).";

/** The request's fields as query parameters, each as the body has it. */
function asQueryParameters(request: { properties: Record<string, JsonSchema> }): Parameter[] {
  return Object.entries(request.properties).map(([name, schema]) => ({ name, in: 'query', schema }));
}

const IGNORED_NAME = { type: 'string', description: 'The path says it; ignored.' };

const WATCH_ONE_REQUEST = {
  type: 'object',
  properties: { name: IGNORED_NAME, fieldMask: { type: 'string' }, view: { type: 'string' } },
};

const WATCH_COLLECTION_REQUEST = {
  type: 'object',
  properties: {
    parent: IGNORED_NAME,
    type: { type: 'string', enum: ['STATEFUL', 'STATELESS'] },
    filter: { type: 'string' },
    fieldMask: { type: 'string' },
    view: { type: 'string' },
    pageSize: { type: 'integer' },
    pageToken: { type: 'string' },
    orderBy: { type: 'string' },
    resumeToken: { type: 'string' },
    startingTime: { type: 'string', description: 'A time (RFC 3339), STATELESS only.' },
    maxChunkSize: { type: 'integer', minimum: 1, maximum: 1000 },
  },
};
