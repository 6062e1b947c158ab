import { z } from 'zod';
import type { ResourceDefinition } from '@outpost/shared';
import type { JsonSchema } from './openapi-types.js';

/** Component names of one kind: `Device` as read, `DeviceInput` as written. */
export const readSchemaName = (def: Pick<ResourceDefinition, 'kind'>): string => def.kind;
export const writeSchemaName = (def: Pick<ResourceDefinition, 'kind'>): string => `${def.kind}Input`;
export const schemaRef = (component: string): JsonSchema => ({ $ref: `#/components/schemas/${component}` });

/** A zod schema of the API (not a resource) as JSON Schema, as it is read (`input`) or written (`output`). */
export function zodJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  delete json['$schema'];
  return json;
}

/**
 * The resource as responses carry it. No field is required: a view or field mask leaves any field out (the name
 * only with a response mask). Output-only fields are `readOnly`.
 */
export function readSchema(def: ResourceDefinition): JsonSchema {
  const schema = converted(def, 'output', readSchemaName(def));
  dropRequired(schema);
  for (const path of def.outputOnly) forEachProperty(schema, path, (node) => (node['readOnly'] = true));
  describeImmutable(schema, def);
  return { description: `${def.kind}: the whole resource (FULL view).`, ...schema };
}

/**
 * The body of create and update. The name may be left out of a create (an id is generated); output-only fields
 * are ignored; with an `updateMask` only the masked fields are read.
 */
export function writeSchema(def: ResourceDefinition): JsonSchema {
  const schema = converted(def, 'input', writeSchemaName(def));
  unrequire(schema, 'name');
  for (const path of def.outputOnly) {
    forEachProperty(schema, path, (node, parent, key) => {
      node['readOnly'] = true;
      unrequire(parent, key);
    });
  }
  describeImmutable(schema, def);
  return {
    description: `${def.kind} as written: output-only fields are ignored, the name is optional on create.`,
    ...schema,
  };
}

function converted(def: ResourceDefinition, io: 'input' | 'output', component: string): JsonSchema {
  const json = z.toJSONSchema(def.schema, { io, unrepresentable: 'any', cycles: 'ref' }) as JsonSchema;
  delete json['$schema'];
  // a reference inside a component is resolved against the document: point it into the component
  return rebaseRefs(json, `#/components/schemas/${component}`) as JsonSchema;
}

function rebaseRefs(value: unknown, base: string): unknown {
  if (Array.isArray(value)) return value.map((item) => rebaseRefs(item, base));
  if (value === null || typeof value !== 'object') return value;
  const out: JsonSchema = {};
  for (const [key, child] of Object.entries(value)) {
    out[key] =
      key === '$ref' && typeof child === 'string' && child.startsWith('#')
        ? base + child.slice(1)
        : rebaseRefs(child, base);
  }
  return out;
}

function dropRequired(value: unknown): void {
  if (Array.isArray(value)) return value.forEach(dropRequired);
  if (value === null || typeof value !== 'object') return;
  const node = value as JsonSchema;
  if (Array.isArray(node['required'])) delete node['required'];
  Object.values(node).forEach(dropRequired);
}

function unrequire(node: JsonSchema, key: string): void {
  const required = node['required'];
  if (!Array.isArray(required)) return;
  const left = required.filter((name) => name !== key);
  if (left.length > 0) node['required'] = left;
  else delete node['required'];
}

function describeImmutable(schema: JsonSchema, def: ResourceDefinition): void {
  for (const path of def.immutable ?? []) {
    forEachProperty(schema, path, (node) => {
      const before = typeof node['description'] === 'string' ? `${node['description']} ` : '';
      node['description'] = `${before}Fixed once created.`;
    });
  }
}

/**
 * Calls `visit` on the property schema at a dotted path, in every alternative (`anyOf`, `oneOf`, `allOf`) a
 * segment passes through; a path the schema does not spell out is skipped.
 */
function forEachProperty(
  schema: JsonSchema,
  path: string,
  visit: (node: JsonSchema, parent: JsonSchema, key: string) => void,
): void {
  const [key, ...rest] = path.split('.');
  if (key === undefined) return;
  for (const object of alternatives(schema)) {
    const properties = object['properties'];
    if (!isSchema(properties)) continue;
    const child = properties[key];
    if (!isSchema(child)) continue;
    if (rest.length === 0) visit(child, object, key);
    else forEachProperty(child, rest.join('.'), visit);
  }
}

function alternatives(schema: JsonSchema): JsonSchema[] {
  const nested = ['anyOf', 'oneOf', 'allOf'].flatMap((keyword) => {
    const list = schema[keyword];
    return Array.isArray(list) ? list.filter(isSchema).flatMap(alternatives) : [];
  });
  return [schema, ...nested];
}

const isSchema = (value: unknown): value is JsonSchema =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
