import { addOperation } from './openapi-types.js';
import type { HttpMethod, Operation, PathItem } from './openapi-types.js';

/**
 * A route mounted on Express itself, outside the resource router (metrics history, file transfer, artifacts):
 * one operation under each of its HTTP methods.
 */
export interface DocumentedRoute {
  /** an OpenAPI path template: `/v1/artifacts/{sha256}` */
  path: string;
  methods: readonly HttpMethod[];
  operation: Operation;
}

/** Adds each route's operation under each of its methods; after the first, the method names its operation id. */
export function addDocumentedRoutes(paths: Record<string, PathItem>, routes: readonly DocumentedRoute[]): void {
  for (const { path, methods, operation } of routes) {
    methods.forEach((method, index) =>
      addOperation(
        paths,
        path,
        method,
        index === 0 ? operation : { ...operation, operationId: `${operation.operationId}${method.toUpperCase()}` },
      ),
    );
  }
}
