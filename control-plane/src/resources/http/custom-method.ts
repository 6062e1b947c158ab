import type { Nested } from './query-params.js';

export type { Nested };

export interface CustomCall {
  /** the resource name (scope 'resource'), the parent (scope 'collection'), or '' (scope 'root') */
  target: string;
  body: unknown;
  query: Nested;
  principal: unknown;
  /** the raw Authorization header, for public methods that authenticate by their own means */
  authorization: string | undefined;
  /** checks one more permission of the caller (for methods that touch several resources) */
  authorize(permission: string, resourceName: string): void;
  signal: AbortSignal;
}

/** A service's own method on a resource (`:accept`), a collection (`:register`) or the root (`plurals:listApprover`). */
export interface CustomMethod {
  plural: string;
  verb: string;
  scope: 'resource' | 'collection' | 'root';
  httpMethod: 'GET' | 'POST' | 'PUT';
  permission: string;
  /** answer with one JSON body, or (stream: true) an async iterable streamed as NDJSON */
  stream?: boolean;
  /** skip the API-key check (for calls authenticated by their own means, e.g. a provisioning token) */
  public?: boolean;
  /**
   * The resource name the permission is checked on, when it is not the target (a root method such as
   * `planAssignmentRequests:listApprover` names its scope in the request); `*` otherwise for root methods.
   */
  authorizeOn?(request: { target: string; query: Nested; body: unknown }): string;
  /**
   * `handle` is synchronous and writes only through the engine: the call may share one commit with the other
   * calls of the moment (ResourceEngine.batch) and is answered once that commit is durable.
   */
  batchable?: boolean;
  /** what the OpenAPI document says of it beyond its shape on the wire (query parameters, answer), when given */
  openApi?: CustomMethodDocs;
  handle(call: CustomCall): unknown;
}

/** A custom method's description, query parameters and answer (JSON Schema 2020-12) for the OpenAPI document. */
export interface CustomMethodDocs {
  description: string;
  /** takes the standard list's query parameters of its kind (besides `queryParameters`) and answers as that list */
  answersAsList?: boolean;
  queryParameters?: readonly { name: string; description: string; schema: Record<string, unknown> }[];
  response?: Record<string, unknown>;
}
