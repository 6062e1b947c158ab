import type { ResourceDefinition } from '@outpost/shared';
import type { CustomMethod } from '../resources/http/custom-method.js';
import { NDJSON, errorResponses } from './common-components.js';
import { addOperation } from './openapi-types.js';
import type { HttpMethod, Operation, ParameterOrRef, PathItem } from './openapi-types.js';
import { collectionPath, operationStem, resourcePath } from './kind-operations.js';
import { listPageSchema, listParameters } from './resource-paths.js';
import { readSchemaName, schemaRef } from './resource-schemas.js';

/**
 * A service's own methods (`:provision`, `:reboot`, `:accept`, ...) as the router finds them: on every name
 * (scope resource) or collection (scope collection) of their kind, or at `/v1/{plural}:{verb}` (scope root).
 * Their bodies are each method's own (README); the declaration says only their shape on the wire.
 */
export function addCustomMethodPaths(
  paths: Record<string, PathItem>,
  definitions: readonly ResourceDefinition[],
  methods: readonly CustomMethod[],
): void {
  for (const method of methods) {
    const httpMethod = method.httpMethod.toLowerCase() as HttpMethod;
    const def = definitions.find((d) => d.plural === method.plural);
    if (method.scope === 'root') {
      addOperation(paths, `/v1/${method.plural}:${method.verb}`, httpMethod, operationOf(method, method.plural, def));
      continue;
    }
    if (!def) throw new Error(`openapi: custom method ${method.plural}:${method.verb} names no registered resource`);
    for (const pattern of def.patterns) {
      const base = method.scope === 'resource' ? resourcePath(pattern) : collectionPath(pattern);
      const stem = `${operationStem(pattern)}${method.scope === 'collection' ? '.collection' : ''}`;
      addOperation(paths, `${base}:${method.verb}`, httpMethod, operationOf(method, stem, def));
    }
  }
}

function operationOf(method: CustomMethod, stem: string, def: ResourceDefinition | undefined): Operation {
  const where = method.scope === 'resource' ? 'a resource' : method.scope === 'collection' ? 'a collection' : 'the API';
  const takesBody = method.httpMethod !== 'GET';
  const asList = listedKind(method, def);
  const parameters: ParameterOrRef[] = [
    ...(asList ? listParameters(asList) : []),
    ...(method.openApi?.queryParameters ?? []).map((p) => ({ ...p, in: 'query' as const })),
  ];
  const response = asList ? listPageSchema(asList, schemaRef(readSchemaName(asList))) : method.openApi?.response;
  return {
    // two HTTP methods may share a verb (`:migrate`): the id names the method unless it is POST
    operationId: `${stem}.${method.verb}${method.httpMethod === 'POST' ? '' : method.httpMethod}`,
    summary: `${method.plural}:${method.verb}`,
    description:
      (method.openApi?.description ?? `A custom method on ${where}.`) +
      (method.public ? ' Public: it authenticates by its own means (no API key).' : '') +
      (method.stream ? ' Answers a stream of JSON lines.' : ''),
    tags: [method.plural],
    'x-outpost-permission': method.permission,
    ...(method.public ? { security: [] } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(takesBody ? { requestBody: { content: { 'application/json': { schema: { type: 'object' } } } } } : {}),
    responses: {
      '200': {
        description: method.stream ? 'NDJSON: one JSON object per line.' : "The method's answer.",
        content: { [method.stream ? NDJSON : 'application/json']: { schema: response ?? {} } },
      },
      ...errorResponses(),
    },
  };
}

/** The kind whose list the method answers as (`answersAsList`), if it does. */
function listedKind(method: CustomMethod, def: ResourceDefinition | undefined): ResourceDefinition | undefined {
  if (method.openApi?.answersAsList !== true) return undefined;
  if (!def) throw new Error(`openapi: ${method.plural}:${method.verb} answers as the list of an unregistered kind`);
  return def;
}
