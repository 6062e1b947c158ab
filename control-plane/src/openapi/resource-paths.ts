import type { ResourceDefinition, StandardVerb } from '@outpost/shared';
import { parameterRef } from './common-components.js';
import { batchCreateOperation, batchGetOperation, batchUpdateOperation } from './batch-operations.js';
import { json, kindAtPattern, ok, standardOperation } from './kind-operations.js';
import type { KindAtPattern, PlacedOperation } from './kind-operations.js';
import { addOperation } from './openapi-types.js';
import type { JsonSchema, ParameterOrRef, PathItem } from './openapi-types.js';
import { watchOperations } from './watch-operations.js';

export { collectionPath, operationStem, resourcePath } from './kind-operations.js';

/** The standard methods of one resource (design.md "REST mapping") it offers, on every name pattern it has. */
export function addResourcePaths(paths: Record<string, PathItem>, def: ResourceDefinition): void {
  const offers = (verb: StandardVerb): boolean => !def.without?.includes(verb);
  const placed: PlacedOperation[] = offers('batchGet') ? [batchGetOperation(def)] : [];
  for (const pattern of def.patterns) {
    const at = kindAtPattern(def, pattern);
    if (offers('get')) placed.push(getOperation(at));
    if (offers('update')) placed.push(...updateOperations(at), batchUpdateOperation(at));
    if (offers('delete')) placed.push(deleteOperation(at));
    if (offers('list')) placed.push(listOperation(at));
    if (offers('create')) placed.push(createOperation(at), batchCreateOperation(at));
    if (offers('watch')) placed.push(...watchOperations(at));
  }
  for (const { path, method, operation } of placed) addOperation(paths, path, method, operation);
}

const getOperation = ({ def, named, stem, resource }: KindAtPattern): PlacedOperation => ({
  path: named,
  method: 'get',
  operation: standardOperation(def, 'get', `${stem}.get`, `Get a ${def.kind}`, {
    parameters: [parameterRef('fieldMask'), parameterRef('view')],
    responses: ok(`The ${def.kind}.`, resource),
  }),
});

const updateOperations = ({ def, named, stem, resource, input }: KindAtPattern): PlacedOperation[] =>
  (['put', 'patch'] as const).map((method) => ({
    path: named,
    method,
    operation: standardOperation(
      def,
      'update',
      `${stem}.update${method === 'patch' ? 'Patch' : ''}`,
      `Update a ${def.kind}`,
      {
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
      },
    ),
  }));

const deleteOperation = ({ def, named, stem }: KindAtPattern): PlacedOperation => ({
  path: named,
  method: 'delete',
  operation: standardOperation(def, 'delete', `${stem}.delete`, `Delete a ${def.kind}`, {
    parameters: [parameterRef('allowMissing')],
    responses: ok('Deleted.', { type: 'object', maxProperties: 0 }),
  }),
});

function listOperation({ def, collection, stem, resource }: KindAtPattern): PlacedOperation {
  return {
    path: collection,
    method: 'get',
    operation: standardOperation(def, 'list', `${stem}.list`, `List ${def.plural}`, {
      parameters: listParameters(def),
      responses: ok(`One page of ${def.plural}.`, listPageSchema(def, resource)),
    }),
  };
}

/** The query parameters of a kind's list (and of custom methods that list it: `:listApprover`). */
export function listParameters(def: ResourceDefinition): ParameterOrRef[] {
  const fields = def.filterSchema.fields
    .map((field) => `${field.path} (${field.type}${field.enumValues ? `: ${field.enumValues.join(', ')}` : ''})`)
    .join(', ');
  return [
    { name: 'filter', in: 'query', schema: { type: 'string' }, description: `A filter over: ${fields}.` },
    {
      name: 'orderBy',
      in: 'query',
      schema: { type: 'string' },
      description: `\`field [desc], ...\` over the same fields; the name breaks ties.`,
    },
    parameterRef('pageSize'),
    parameterRef('pageToken'),
    parameterRef('fieldMask'),
    parameterRef('view'),
    parameterRef('includePagingInfo'),
  ];
}

/** One page of a kind's list. */
export const listPageSchema = (def: ResourceDefinition, resource: JsonSchema): JsonSchema => ({
  type: 'object',
  properties: {
    [def.plural]: { type: 'array', items: resource },
    prevPageToken: { type: 'string' },
    nextPageToken: { type: 'string' },
    currentOffset: { type: 'integer' },
    totalResultsCount: { type: 'integer' },
  },
  required: [def.plural, 'prevPageToken', 'nextPageToken'],
  additionalProperties: false,
});

const createOperation = ({ def, collection, stem, resource, input }: KindAtPattern): PlacedOperation => ({
  path: collection,
  method: 'post',
  operation: standardOperation(def, 'create', `${stem}.create`, `Create a ${def.kind}`, {
    parameters: responseMaskParameters(),
    requestBody: { required: true, content: json(input) },
    responses: ok(`The ${def.kind} as stored.`, resource),
  }),
});

const responseMaskParameters = (): ParameterOrRef[] => [
  parameterRef('skipEntireResponseBody'),
  parameterRef('updatedFieldsOnly'),
  parameterRef('bodyMask'),
];
