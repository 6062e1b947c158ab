import { CANONICAL_CODES, VIEWS } from '@outpost/shared';
import type { JsonSchema, Parameter, Response } from './openapi-types.js';

const query = (name: string, schema: JsonSchema, description: string): Parameter => ({
  name,
  in: 'query',
  description,
  schema,
});

const MASK = 'comma-separated field paths (dotted, lowerCamel)';

/** The query parameters of the standard methods (requests.ts), by component name. */
export const COMMON_PARAMETERS: Record<string, Parameter> = {
  fieldMask: query('fieldMask', { type: 'string' }, `Fields to return on top of the view: ${MASK}.`),
  view: query(
    'view',
    { type: 'string', enum: [...VIEWS] },
    'NAME (names only), BASIC, DETAIL or FULL (the default: everything); case-insensitive.',
  ),
  pageSize: query('pageSize', { type: 'integer', minimum: 0, maximum: 1000 }, 'Default 100, at most 1000.'),
  pageToken: query('pageToken', { type: 'string' }, 'A nextPageToken or prevPageToken of the same list.'),
  includePagingInfo: query('includePagingInfo', { type: 'boolean' }, 'Add currentOffset and totalResultsCount.'),
  names: {
    ...query('names', { type: 'array', items: { type: 'string' } }, 'The resource names (repeat the parameter).'),
    style: 'form',
    explode: true,
  },
  updateMask: query(
    'updateMask',
    { type: 'string' },
    `The fields to change: ${MASK}; without it (or empty) the body replaces every writable field.`,
  ),
  allowMissing: query(
    'allowMissing',
    { type: 'boolean' },
    'Update: create the resource when absent. Delete: succeed when absent.',
  ),
  casFieldMask: query(
    'cas.fieldMask',
    { type: 'string' },
    'Compare-and-swap: the stored fields compared with cas.conditionalState.<path>=<value> parameters; ' +
      'a mismatch is ABORTED and changes nothing.',
  ),
  skipEntireResponseBody: query(
    'responseMask.skipEntireResponseBody',
    { type: 'boolean' },
    'Answer with no body fields.',
  ),
  updatedFieldsOnly: query(
    'responseMask.updatedFieldsOnly',
    { type: 'boolean' },
    'Answer with the changed fields only.',
  ),
  bodyMask: query('responseMask.bodyMask', { type: 'string' }, `Answer with these fields only: ${MASK}.`),
};

export const parameterRef = (component: keyof typeof COMMON_PARAMETERS & string): { $ref: string } => ({
  $ref: `#/components/parameters/${component}`,
});

/** The one error body of every API (shared/src/errors). */
export const ERROR_DETAIL_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    code: { type: 'integer', description: 'The HTTP status.' },
    status: { type: 'string', enum: [...CANONICAL_CODES] },
    message: { type: 'string' },
  },
  required: ['code', 'status', 'message'],
};

export const ERROR_BODY_SCHEMA: JsonSchema = {
  type: 'object',
  properties: { error: ERROR_DETAIL_SCHEMA },
  required: ['error'],
};

export const ERROR_RESPONSE: Response = {
  description:
    'An error: INVALID_ARGUMENT and FAILED_PRECONDITION 400, UNAUTHENTICATED 401, PERMISSION_DENIED 403, ' +
    'NOT_FOUND 404, ABORTED and ALREADY_EXISTS 409, RESOURCE_EXHAUSTED 429, INTERNAL 500, UNIMPLEMENTED 501, ' +
    'UNAVAILABLE 503. A refused write changes nothing.',
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
};

export const errorResponses = (): Record<string, { $ref: string }> => ({
  default: { $ref: '#/components/responses/Error' },
});

export const NDJSON = 'application/x-ndjson';
