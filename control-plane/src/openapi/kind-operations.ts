import { permissionOf } from '@outpost/shared';
import type { NamePattern, ResourceDefinition, StandardVerb } from '@outpost/shared';
import { errorResponses } from './common-components.js';
import type { HttpMethod, JsonSchema, Operation } from './openapi-types.js';
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

/** One kind on one of its name patterns, as the builders of its standard operations see it. */
export interface KindAtPattern {
  def: ResourceDefinition;
  pattern: NamePattern;
  /** `/v1/…/devices/{device}` */
  named: string;
  /** `/v1/…/devices` */
  collection: string;
  /** operation ids start with it */
  stem: string;
  /** references to the kind's schemas as read and as written */
  resource: JsonSchema;
  input: JsonSchema;
}

/** An operation to add: where, and what. */
export interface PlacedOperation {
  path: string;
  method: HttpMethod;
  operation: Operation;
}

export function kindAtPattern(def: ResourceDefinition, pattern: NamePattern): KindAtPattern {
  return {
    def,
    pattern,
    named: resourcePath(pattern),
    collection: collectionPath(pattern),
    stem: operationStem(pattern),
    resource: schemaRef(readSchemaName(def)),
    input: schemaRef(writeSchemaName(def)),
  };
}

/** A standard operation of the kind: tagged with its plural, naming the permission of `verb`. */
export function standardOperation(
  def: ResourceDefinition,
  verb: StandardVerb,
  operationId: string,
  summary: string,
  rest: Omit<Operation, 'operationId' | 'summary' | 'tags'>,
): Operation {
  return { operationId, summary, tags: [def.plural], 'x-outpost-permission': permissionOf(def, verb), ...rest };
}

export const json = (schema: JsonSchema): Record<string, { schema: JsonSchema }> => ({
  'application/json': { schema },
});

export const ok = (description: string, schema: JsonSchema): Operation['responses'] => ({
  '200': { description, content: json(schema) },
  ...errorResponses(),
});
