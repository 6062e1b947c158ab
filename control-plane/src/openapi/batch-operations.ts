import type { ResourceDefinition } from '@outpost/shared';
import { ERROR_DETAIL_SCHEMA, parameterRef } from './common-components.js';
import { json, ok, standardOperation } from './kind-operations.js';
import type { KindAtPattern, PlacedOperation } from './kind-operations.js';
import type { JsonSchema } from './openapi-types.js';
import { readSchemaName, schemaRef } from './resource-schemas.js';

/** `GET /v1/{plural}:batchGet?names=…`: one per kind, whatever its patterns. */
export function batchGetOperation(def: ResourceDefinition): PlacedOperation {
  return {
    path: `/v1/${def.plural}:batchGet`,
    method: 'get',
    operation: standardOperation(def, 'batchGet', `${def.plural}.batchGet`, `Get several ${def.plural} by name`, {
      parameters: [parameterRef('names'), parameterRef('fieldMask'), parameterRef('view')],
      responses: ok(`The ${def.plural} found, and the names that were not.`, {
        type: 'object',
        properties: {
          [def.plural]: { type: 'array', items: schemaRef(readSchemaName(def)) },
          missing: { type: 'array', items: { type: 'string' } },
        },
      }),
    }),
  };
}

/** `POST /v1/{parent}/{plural}:batchUpdate`: masked updates of names in the parent. */
export function batchUpdateOperation(at: KindAtPattern): PlacedOperation {
  const { def, resource, input } = at;
  return collectionBatch(at, 'batchUpdate', 'update', {
    summary: `Update several ${def.plural}`,
    description:
      'Each request is the update a PUT with its updateMask makes (permission update on each name); all or ' +
      'nothing unless allowPartialSuccess. At most 1000.',
    request: batchUpdateRequest(def, input),
    answered: 'The updated resources and the refused updates.',
    answer: {
      [def.plural]: { type: 'array', items: resource },
      failures: {
        type: 'array',
        items: { type: 'object', properties: { name: { type: 'string' }, error: ERROR_DETAIL_SCHEMA } },
      },
    },
  });
}

/** `POST /v1/{parent}/{plural}:batchCreate`: creates in the parent, all or nothing (AIP-233). */
export function batchCreateOperation(at: KindAtPattern): PlacedOperation {
  const { def, resource, input } = at;
  return collectionBatch(at, 'batchCreate', 'create', {
    summary: `Create several ${def.plural}`,
    description:
      'Each request is the create a POST to the collection makes (permission create on the parent), all in ' +
      'one transaction: all or nothing, the first refusal answers. At most 1000.',
    request: requestsBody({ [def.singular]: input, parent: { type: 'string' } }, [def.singular], {
      responseMask: RESPONSE_MASK,
    }),
    answered: 'The created resources, in the order of the requests.',
    answer: { [def.plural]: { type: 'array', items: resource } },
  });
}

/** A custom verb on the collection taking a JSON body, with a standard verb's permission. */
function collectionBatch(
  at: KindAtPattern,
  verb: string,
  standard: 'create' | 'update',
  shape: {
    summary: string;
    description: string;
    request: JsonSchema;
    answered: string;
    answer: Record<string, JsonSchema>;
  },
): PlacedOperation {
  const { def, collection, stem } = at;
  return {
    path: `${collection}:${verb}`,
    method: 'post',
    operation: standardOperation(def, standard, `${stem}.${verb}`, shape.summary, {
      description: shape.description,
      requestBody: { required: true, content: json(shape.request) },
      responses: ok(shape.answered, { type: 'object', properties: shape.answer }),
    }),
  };
}

const RESPONSE_MASK: JsonSchema = {
  type: 'object',
  properties: {
    skipEntireResponseBody: { type: 'boolean' },
    updatedFieldsOnly: { type: 'boolean' },
    bodyMask: { type: 'string' },
  },
};

const batchUpdateRequest = (def: ResourceDefinition, input: JsonSchema): JsonSchema =>
  requestsBody(
    {
      [def.singular]: input,
      updateMask: { type: 'string' },
      cas: { type: 'object', properties: { fieldMask: { type: 'string' }, conditionalState: { type: 'object' } } },
    },
    [def.singular, 'updateMask'],
    { allowPartialSuccess: { type: 'boolean' }, responseMask: RESPONSE_MASK },
  );

/** A batch's body: `requests` (at most 1000, each of `item`'s properties) and the batch's own `fields`. */
const requestsBody = (
  item: Record<string, JsonSchema>,
  required: string[],
  fields: Record<string, JsonSchema>,
): JsonSchema => ({
  type: 'object',
  properties: {
    requests: { type: 'array', maxItems: 1000, items: { type: 'object', properties: item, required } },
    ...fields,
  },
  required: ['requests'],
});
