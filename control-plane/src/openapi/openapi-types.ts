/** The parts of an OpenAPI 3.1 document this generator writes (schemas are JSON Schema 2020-12). */
export type JsonSchema = { [keyword: string]: unknown };

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  description?: string;
  schema: JsonSchema;
  style?: 'form' | 'simple';
  explode?: boolean;
}

export type ParameterOrRef = Parameter | { $ref: string };

export interface MediaType {
  schema: JsonSchema;
}

export interface Response {
  description: string;
  content?: Record<string, MediaType>;
}

export interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  parameters?: ParameterOrRef[];
  requestBody?: { required?: boolean; content: Record<string, MediaType> };
  responses: Record<string, Response | { $ref: string }>;
  /** empty: callable without an API key */
  security?: Record<string, string[]>[];
  /** the permission the caller's key must hold on the name or parent */
  'x-outpost-permission'?: string;
}

export type HttpMethod = 'get' | 'head' | 'put' | 'post' | 'delete' | 'patch';

export type PathItem = { parameters?: Parameter[] } & Partial<Record<HttpMethod, Operation>>;

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  jsonSchemaDialect: string;
  security: Record<string, string[]>[];
  tags: { name: string; description: string }[];
  paths: Record<string, PathItem>;
  components: {
    schemas: Record<string, JsonSchema>;
    parameters: Record<string, Parameter>;
    responses: Record<string, Response>;
    securitySchemes: Record<string, { type: 'http'; scheme: 'bearer'; description: string }>;
  };
}

/** Adds operations to a paths map, one path item per template. */
export function addOperation(
  paths: Record<string, PathItem>,
  path: string,
  method: HttpMethod,
  operation: Operation,
): void {
  const item = (paths[path] ??= { parameters: pathParameters(path) });
  if (item[method]) throw new Error(`openapi: two operations for ${method.toUpperCase()} ${path}`);
  item[method] = operation;
}

/** `{project}` of a path template → a required path parameter (a `-` segment matches every value in a parent). */
function pathParameters(path: string): Parameter[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => ({
    name: name ?? '',
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
}
