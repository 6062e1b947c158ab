import { deviceDefinition, invalidArgument, permissionOf } from '@outpost/shared';
import { DEFAULT_MAX_VALUES, MAX_VALUES_LIMIT, countCollection } from '../resources/collection-counts.js';
import type { Device } from '@outpost/shared';
import type { CustomMethod, CustomMethodDocs } from '../resources/http/custom-method.js';
import { asInteger, asObject, asString, asStrings, only } from '../resources/http/query-params.js';
import type { ResourceHandle } from '../resources/resource-handle.js';

/**
 * `GET /v1/{parent}/devices:counts`: the fleet at a glance without reading it (the dashboard's overview). How
 * many devices of the parent (and `filter`) there are, how many hold each value of the `by` fields, and how many
 * pass each `count.<name>` filter; checked like a list of the parent.
 */
export function deviceCountsMethod(devices: ResourceHandle<Device>): CustomMethod {
  return {
    plural: 'devices',
    verb: 'counts',
    scope: 'collection',
    httpMethod: 'GET',
    permission: permissionOf(deviceDefinition, 'list'),
    openApi: COUNTS_DOCS,
    handle: ({ target, query }) => {
      const params = only(query, ['filter', 'by', 'maxValues', 'count']);
      const counts = asObject(params.count, 'count') ?? {};
      const by = (asStrings(params.by, 'by') ?? []).flatMap((list) => list.split(',').map((path) => path.trim()));
      if (by.some((path) => path === '')) throw invalidArgument('by: an empty field path');
      const maxValues = asInteger(params.maxValues, 'maxValues');
      const filter = asString(params.filter, 'filter');
      return countCollection(devices, {
        parent: target,
        ...(filter !== undefined ? { filter } : {}),
        by,
        ...(maxValues !== undefined ? { maxValues } : {}),
        counts: Object.fromEntries(
          Object.entries(counts).map(([id, text]) => [id, asString(text, `count.${id}`) ?? '']),
        ),
      });
    },
  };
}

const count = { type: 'integer', minimum: 0 };

const COUNTS_DOCS: CustomMethodDocs = {
  description:
    'Counts the devices of the parent (and `filter`) without reading them: `total`, per `by` field how many ' +
    'devices hold each value (`null`: without the field), and per `count.<name>=<filter>` query parameter (a ' +
    'letter, then letters or digits; at most 32) how many pass that filter too. `resumeToken` is the change-log ' +
    'position the counts were read at: a STATELESS devices:watch resumed from it sends what changed since.',
  queryParameters: [
    { name: 'filter', description: 'restricts every count (the filter language)', schema: { type: 'string' } },
    {
      name: 'by',
      description: 'a filterable single-valued field (repeated or comma-separated; at most 8)',
      schema: { type: 'array', items: { type: 'string' } },
    },
    {
      name: 'maxValues',
      description: 'distinct values per `by` field at most, in value order (`more` says when there are others)',
      schema: { type: 'integer', minimum: 1, maximum: MAX_VALUES_LIMIT, default: DEFAULT_MAX_VALUES },
    },
    {
      name: 'count',
      description: 'named filters, each written as its own `count.<name>=<filter>` query parameter (dotted keys)',
      schema: { type: 'object', additionalProperties: { type: 'string' } },
    },
  ],
  response: {
    type: 'object',
    required: ['total', 'byField', 'counts', 'resumeToken'],
    properties: {
      total: count,
      byField: {
        type: 'array',
        items: {
          type: 'object',
          required: ['field', 'values', 'more'],
          properties: {
            field: { type: 'string' },
            values: {
              type: 'array',
              items: {
                type: 'object',
                required: ['value', 'count'],
                properties: { value: { type: ['string', 'number', 'boolean', 'null'] }, count },
              },
            },
            more: { type: 'boolean' },
          },
        },
      },
      counts: { type: 'object', additionalProperties: count },
      resumeToken: { type: 'string' },
    },
  },
};
