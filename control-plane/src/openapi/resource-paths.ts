import { changesKey, permissionOf } from '@outpost/shared';
import type { NamePattern, ResourceDefinition, StandardVerb } from '@outpost/shared';
import {
  CHANGE_MESSAGE_SCHEMA,
  ERROR_BODY_SCHEMA,
  ERROR_DETAIL_SCHEMA,
  NDJSON,
  errorResponses,
  parameterRef,
} from './common-components.js';
import { addOperation } from './openapi-types.js';
import type { JsonSchema, Operation, ParameterOrRef, PathItem } from './openapi-types.js';
import { readSchemaName, schemaRef, writeSchemaName } from './resource-schemas.js';

/** `/v1/projects/{project}/regions/{region}/devices/{device}` and its collection. */
export const resourcePath = (pattern: NamePattern): string => `/v1/${pattern.template}`;
export const collectionPath = (pattern: NamePattern): string =>
  pattern.parentTemplate === '' ? `/v1/${pattern.collection}` : `/v1/${pattern.parentTemplate}/${pattern.collection}`;

/** `projects.regions.devices`: the collections of a pattern, the stem of its operation ids. */
export const operationStem = (pattern: NamePattern): string =>
  pattern.template
    .split('/')
    .filter((segment) => !segment.startsWith('{'))
    .join('.');

const json = (schema: JsonSchema) => ({ 'application/json': { schema } });
const ok = (description: string, schema: JsonSchema) => ({
  '200': { description, content: json(schema) },
  ...errorResponses(),
});

/** The standard methods of one resource (design.md "REST mapping"), on every name pattern it has. */
export function addResourcePaths(paths: Record<string, PathItem>, def: ResourceDefinition): void {
  const offers = (verb: StandardVerb): boolean => !def.without?.includes(verb);
  const resource = schemaRef(readSchemaName(def));
  const input = schemaRef(writeSchemaName(def));
  const operation = (
    verb: StandardVerb,
    id: string,
    summary: string,
    rest: Omit<Operation, 'operationId' | 'summary' | 'tags'>,
  ): Operation => ({
    operationId: id,
    summary,
    tags: [def.plural],
    'x-outpost-permission': permissionOf(def, verb),
    ...rest,
  });

  if (offers('batchGet')) {
    addOperation(
      paths,
      `/v1/${def.plural}:batchGet`,
      'get',
      operation('batchGet', `${def.plural}.batchGet`, `Get several ${def.plural} by name`, {
        parameters: [parameterRef('names'), parameterRef('fieldMask'), parameterRef('view')],
        responses: ok(`The ${def.plural} found, and the names that were not.`, {
          type: 'object',
          properties: {
            [def.plural]: { type: 'array', items: resource },
            missing: { type: 'array', items: { type: 'string' } },
          },
        }),
      }),
    );
  }

  for (const pattern of def.patterns) {
    const stem = operationStem(pattern);
    const named = resourcePath(pattern);
    const collection = collectionPath(pattern);
    const fields = filterFields(def);
    if (offers('get')) {
      addOperation(
        paths,
        named,
        'get',
        operation('get', `${stem}.get`, `Get a ${def.kind}`, {
          parameters: [parameterRef('fieldMask'), parameterRef('view')],
          responses: ok(`The ${def.kind}.`, resource),
        }),
      );
    }
    if (offers('update')) {
      for (const method of ['put', 'patch'] as const) {
        addOperation(
          paths,
          named,
          method,
          operation('update', `${stem}.update${method === 'patch' ? 'Patch' : ''}`, `Update a ${def.kind}`, {
            description:
              'With updateMask only the masked fields change; without it the body replaces every writable field. ' +
              'PUT and PATCH are the same operation.',
            parameters: [
              parameterRef('updateMask'),
              parameterRef('allowMissing'),
              parameterRef('casFieldMask'),
              ...responseMaskParameters(),
            ],
            requestBody: { required: true, content: json(input) },
            responses: ok(`The ${def.kind} as stored.`, resource),
          }),
        );
      }
    }
    if (offers('delete')) {
      addOperation(
        paths,
        named,
        'delete',
        operation('delete', `${stem}.delete`, `Delete a ${def.kind}`, {
          parameters: [parameterRef('allowMissing')],
          responses: ok('Deleted.', { type: 'object', maxProperties: 0 }),
        }),
      );
    }
    if (offers('watch')) {
      addOperation(
        paths,
        `${named}:watch`,
        'post',
        operation('watch', `${stem}.watch`, `Watch a ${def.kind}`, {
          description:
            'Its current state first, then every change, one JSON object per line; a failure ends the stream with an error line.',
          requestBody: {
            content: json({ type: 'object', properties: { fieldMask: { type: 'string' }, view: { type: 'string' } } }),
          },
          responses: {
            '200': {
              description: 'NDJSON: one `{"change": ...}` per line (empty lines keep the connection alive).',
              content: {
                [NDJSON]: {
                  schema: {
                    oneOf: [
                      { type: 'object', properties: { change: CHANGE_MESSAGE_SCHEMA }, required: ['change'] },
                      ERROR_BODY_SCHEMA,
                    ],
                  },
                },
              },
            },
            ...errorResponses(),
          },
        }),
      );
    }
    if (offers('list')) {
      addOperation(
        paths,
        collection,
        'get',
        operation('list', `${stem}.list`, `List ${def.plural}`, {
          parameters: [
            {
              name: 'filter',
              in: 'query',
              schema: { type: 'string' },
              description: `A filter (README "Filters") over: ${fields}.`,
            },
            {
              name: 'orderBy',
              in: 'query',
              schema: { type: 'string' },
              description: `\`field [desc], ...\` over: ${fields}; the name breaks ties.`,
            },
            parameterRef('pageSize'),
            parameterRef('pageToken'),
            parameterRef('fieldMask'),
            parameterRef('view'),
            parameterRef('includePagingInfo'),
          ],
          responses: ok(`One page of ${def.plural}.`, {
            type: 'object',
            properties: {
              [def.plural]: { type: 'array', items: resource },
              prevPageToken: { type: 'string' },
              nextPageToken: { type: 'string' },
              currentOffset: { type: 'integer' },
              totalResultsCount: { type: 'integer' },
            },
          }),
        }),
      );
    }
    if (offers('create')) {
      addOperation(
        paths,
        collection,
        'post',
        operation('create', `${stem}.create`, `Create a ${def.kind}`, {
          parameters: responseMaskParameters(),
          requestBody: { required: true, content: json(input) },
          responses: ok(`The ${def.kind} as stored.`, resource),
        }),
      );
    }
    if (offers('update')) {
      addOperation(
        paths,
        `${collection}:batchUpdate`,
        'post',
        operation('update', `${stem}.batchUpdate`, `Update several ${def.plural}`, {
          description:
            'Each request is the update a PUT with its updateMask makes; all or nothing unless allowPartialSuccess. At most 1000.',
          requestBody: {
            required: true,
            content: json({
              type: 'object',
              properties: {
                requests: {
                  type: 'array',
                  maxItems: 1000,
                  items: {
                    type: 'object',
                    properties: {
                      [def.singular]: input,
                      updateMask: { type: 'string' },
                      cas: {
                        type: 'object',
                        properties: { fieldMask: { type: 'string' }, conditionalState: { type: 'object' } },
                      },
                    },
                    required: [def.singular, 'updateMask'],
                  },
                },
                allowPartialSuccess: { type: 'boolean' },
                responseMask: {
                  type: 'object',
                  properties: {
                    skipEntireResponseBody: { type: 'boolean' },
                    updatedFieldsOnly: { type: 'boolean' },
                    bodyMask: { type: 'string' },
                  },
                },
              },
              required: ['requests'],
            }),
          },
          responses: ok('The updated resources and the refused updates.', {
            type: 'object',
            properties: {
              [def.plural]: { type: 'array', items: resource },
              failures: {
                type: 'array',
                items: { type: 'object', properties: { name: { type: 'string' }, error: ERROR_DETAIL_SCHEMA } },
              },
            },
          }),
        }),
      );
    }
    if (offers('watch')) {
      addOperation(
        paths,
        `${collection}:watch`,
        'post',
        operation('watch', `${stem}.watchCollection`, `Watch ${def.plural}`, {
          description: 'STATEFUL (default) or STATELESS watch of the collection: README "Watch".',
          requestBody: { content: json(WATCH_COLLECTION_REQUEST) },
          responses: {
            '200': {
              description: `NDJSON: one watch response per line (empty lines keep the connection alive); changes are under \`${changesKey(def)}\`.`,
              content: { [NDJSON]: { schema: { oneOf: [watchResponseSchema(changesKey(def)), ERROR_BODY_SCHEMA] } } },
            },
            ...errorResponses(),
          },
        }),
      );
    }
  }
}

const responseMaskParameters = (): ParameterOrRef[] => [
  parameterRef('skipEntireResponseBody'),
  parameterRef('updatedFieldsOnly'),
  parameterRef('bodyMask'),
];

const filterFields = (def: ResourceDefinition): string =>
  def.filterSchema.fields
    .map((field) => `${field.path} (${field.type}${field.enumValues ? `: ${field.enumValues.join(', ')}` : ''})`)
    .join(', ');

const WATCH_COLLECTION_REQUEST: JsonSchema = {
  type: 'object',
  properties: {
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

const watchResponseSchema = (changes: string): JsonSchema => ({
  type: 'object',
  properties: {
    [changes]: { type: 'array', items: CHANGE_MESSAGE_SCHEMA },
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
  required: [changes],
});
