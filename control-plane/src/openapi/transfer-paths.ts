import { DEVICE_PATTERN, TRANSFER_CONTENT_TYPE, uploadSummarySchema } from '@outpost/shared';
import { CONNECT_PERMISSION, DEBUG_BUNDLE_PERMISSION, TRANSFER_METHODS } from '../transfer/transfer-routes.js';
import { errorResponses } from './common-components.js';
import type { DocumentedRoute } from './documented-route.js';
import { ok, operationStem, resourcePath } from './kind-operations.js';
import type { HttpMethod, JsonSchema, Operation, Parameter } from './openapi-types.js';
import { zodJsonSchema } from './resource-schemas.js';

const BYTES: JsonSchema = { type: 'string', contentMediaType: 'application/octet-stream' };
const TRANSFER_STREAM: JsonSchema = { type: 'string', contentMediaType: TRANSFER_CONTENT_TYPE };

const query = (name: string, description: string, schema: JsonSchema, required = false): Parameter => ({
  name,
  in: 'query',
  description,
  required,
  schema,
});

const PATH = 'The absolute path on the device.';

/** What each byte endpoint of transfer-routes.ts says beyond its methods. */
const OPERATIONS: Record<keyof typeof TRANSFER_METHODS, Omit<Operation, 'operationId' | 'tags'>> = {
  upload: {
    summary: 'Copy files to the device',
    description:
      `A transfer stream (\`${TRANSFER_CONTENT_TYPE}\`, what \`outpost devices scp\` sends) or the raw bytes of ` +
      'one file (any other type but JSON), relayed to the device as it arrives.',
    'x-outpost-permission': `${CONNECT_PERMISSION} (on the project)`,
    parameters: [
      query('path', `${PATH} The destination.`, { type: 'string' }, true),
      query('name', 'Raw bytes only: keep the file under this name in the directory `path`.', { type: 'string' }),
      query('mode', 'Raw bytes only: the octal file mode, default 0644.', {
        type: 'string',
        pattern: '^0?[0-7]{3,4}$',
      }),
    ],
    requestBody: {
      required: true,
      content: { [TRANSFER_CONTENT_TYPE]: { schema: TRANSFER_STREAM }, 'application/octet-stream': { schema: BYTES } },
    },
    responses: ok('What was written.', zodJsonSchema(uploadSummarySchema, 'output')),
  },
  download: {
    summary: 'Copy files from the device',
    description:
      `A transfer stream when the request accepts \`${TRANSFER_CONTENT_TYPE}\`, else the raw bytes of one file ` +
      '(Content-Disposition names it).',
    'x-outpost-permission': `${CONNECT_PERMISSION} (on the project)`,
    parameters: [
      query('path', PATH, { type: 'string' }, true),
      query('recursive', 'A directory and everything in it (transfer stream only).', { type: 'boolean' }),
    ],
    responses: {
      '200': {
        description: 'The bytes, relayed from the device as they come.',
        content: {
          [TRANSFER_CONTENT_TYPE]: { schema: TRANSFER_STREAM },
          'application/octet-stream': { schema: BYTES },
        },
      },
      ...errorResponses(),
    },
  },
  collectDebugBundle: {
    summary: "A tar.gz of the device's logs and state",
    'x-outpost-permission': DEBUG_BUNDLE_PERMISSION,
    responses: {
      '200': {
        description: '`outpost-debug-<device>-<time>.tar.gz`, relayed from the device.',
        content: { 'application/gzip': { schema: { type: 'string', contentMediaType: 'application/gzip' } } },
      },
      ...errorResponses(),
    },
  },
};

/** `/v1/{device}:upload`, `:download`, `:collectDebugBundle` (transfer-routes.ts), on the methods each takes. */
export function transferRoutes(): DocumentedRoute[] {
  const device = resourcePath(DEVICE_PATTERN);
  const stem = operationStem(DEVICE_PATTERN);
  return Object.entries(TRANSFER_METHODS).map(([verb, methods]) => ({
    path: `${device}:${verb}`,
    methods: methods.map((method) => method.toLowerCase() as HttpMethod),
    operation: {
      operationId: `${stem}.${verb}`,
      tags: ['devices'],
      ...OPERATIONS[verb as keyof typeof TRANSFER_METHODS],
    },
  }));
}
