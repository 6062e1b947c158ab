import type { Express } from 'express';
import { DEVICE_PATTERN } from '@outpost/shared';
import type { ResourceDefinition } from '@outpost/shared';
import { collectionPath, resourcePath } from '../../src/openapi/kind-operations.js';
import type { OpenApiDocument, Parameter, ParameterOrRef } from '../../src/openapi/openapi-types.js';
import type { CustomMethod } from '../../src/resources/http/custom-method.js';
import { TRANSFER_METHODS } from '../../src/transfer/transfer-routes.js';

/** `get /v1/apiKeys/{id}`: a method and an OpenAPI path template. */
export type Route = string;

interface RouterLayer {
  route?: { path: unknown; methods: Record<string, boolean> };
  handle?: { stack?: RouterLayer[] };
  slash?: boolean;
}

/**
 * The routes Express serves (`router.get('/v1/…')`, in the app and in the routers it mounts at its root), as
 * OpenAPI templates. A router mounted under a prefix has routes whose full path Express does not keep: refused.
 */
export function expressRoutes(app: Express): Route[] {
  const walk = (stack: readonly RouterLayer[], atRoot: boolean): Route[] =>
    stack.flatMap((layer): Route[] => {
      if (layer.route) {
        const { path, methods } = layer.route;
        if (typeof path !== 'string') throw new Error(`a route whose path is not a string: ${String(path)}`);
        if (!atRoot) throw new Error(`${path}: a route of a router mounted under a prefix`);
        const template = path.replace(/:(\w+)/g, '{$1}');
        return Object.keys(methods).map((method) => `${method} ${template}`);
      }
      const inner = layer.handle?.stack;
      return inner ? walk(inner, atRoot && layer.slash === true) : [];
    });
  const router = (app as unknown as { router: { stack: RouterLayer[] } }).router;
  return walk(router.stack, true).filter((route) => route.split(' ')[1]?.startsWith('/v1/'));
}

/** The byte endpoints of transfer-routes.ts: one middleware, its table says which verbs and methods it takes. */
export function transferRoutes(): Route[] {
  return Object.entries(TRANSFER_METHODS).flatMap(([verb, methods]) =>
    methods.map((method) => `${method.toLowerCase()} ${resourcePath(DEVICE_PATTERN)}:${verb}`),
  );
}

/** Where the resource router serves each custom method: on every name pattern of its kind, or at the root. */
export function customMethodRoutes(
  methods: readonly CustomMethod[],
  definitions: readonly ResourceDefinition[],
): Route[] {
  return methods.flatMap((method) => {
    const verb = method.httpMethod.toLowerCase();
    if (method.scope === 'root') return [`${verb} /v1/${method.plural}:${method.verb}`];
    const def = definitions.find((d) => d.plural === method.plural);
    if (!def) throw new Error(`${method.plural}:${method.verb} names no registered resource`);
    return def.patterns.map((pattern) => {
      const base = method.scope === 'resource' ? resourcePath(pattern) : collectionPath(pattern);
      return `${verb} ${base}:${method.verb}`;
    });
  });
}

/** The routes the document has no operation for. */
export function undocumented(doc: OpenApiDocument, routes: readonly Route[]): Route[] {
  return routes.filter((route) => {
    const [method = '', path = ''] = route.split(' ');
    return doc.paths[path]?.[method as 'get'] === undefined;
  });
}

/** The query parameters an operation documents (references resolved). */
export function documentedParameters(doc: OpenApiDocument, parameters: readonly ParameterOrRef[] = []): Parameter[] {
  return parameters.flatMap((parameter) => {
    if (!('$ref' in parameter)) return parameter.in === 'query' ? [parameter] : [];
    const resolved = doc.components.parameters[parameter.$ref.split('/').at(-1) ?? ''];
    if (!resolved) throw new Error(`unresolved ${parameter.$ref}`);
    return resolved.in === 'query' ? [resolved] : [];
  });
}
