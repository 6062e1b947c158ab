import { ARTIFACT_DOWNLOAD_PERMISSION, ARTIFACT_UPLOAD_PERMISSION } from '../os/artifact-routes.js';
import { errorResponses } from './common-components.js';
import type { DocumentedRoute } from './documented-route.js';
import { ok } from './kind-operations.js';
import type { JsonSchema, Parameter } from './openapi-types.js';

const BYTES: JsonSchema = { type: 'string', contentMediaType: 'application/octet-stream' };

const header = (name: string, description: string): Parameter => ({
  name,
  in: 'header',
  description,
  schema: { type: 'string' },
});

/** `PUT /v1/artifacts`, `GET|HEAD /v1/artifacts/{sha256}` (artifact-routes.ts): OS images by their digest. */
export function artifactRoutes(): DocumentedRoute[] {
  return [
    {
      path: '/v1/artifacts',
      methods: ['put'],
      operation: {
        operationId: 'artifacts.put',
        summary: 'Store an artifact',
        description: 'The raw bytes of an OS image (or any file an OsVersion names); stored under their SHA-256.',
        tags: ['artifacts'],
        'x-outpost-permission': `${ARTIFACT_UPLOAD_PERMISSION} (on *)`,
        parameters: [header('X-Content-Sha256', 'The SHA-256 the bytes must have (hex); refused when they differ.')],
        requestBody: { required: true, content: { 'application/octet-stream': { schema: BYTES } } },
        responses: ok('Stored.', {
          type: 'object',
          properties: {
            sha256: { type: 'string' },
            size: { type: 'integer' },
            url: { type: 'string', description: '`/v1/artifacts/<sha256>`' },
          },
          required: ['sha256', 'size', 'url'],
          additionalProperties: false,
        }),
      },
    },
    {
      path: '/v1/artifacts/{sha256}',
      methods: ['get', 'head'],
      operation: {
        operationId: 'artifacts.get',
        summary: 'Download an artifact',
        description:
          'With an API key (permission below), or with a device credential: a device gets only the artifacts of ' +
          'OS versions published for its device type (others are NOT_FOUND to it). ETag is the quoted digest.',
        tags: ['artifacts'],
        'x-outpost-permission': `${ARTIFACT_DOWNLOAD_PERMISSION} (on *), or a device credential`,
        parameters: [
          header('Range', 'One `bytes=a-b`, `bytes=a-` or `bytes=-n` range (several: the whole artifact).'),
          header('If-None-Match', 'The ETag: 304 when it matches.'),
          header('If-Range', 'The ETag: the range only when it matches, else the whole artifact.'),
        ],
        responses: {
          '200': { description: 'The whole artifact.', content: { 'application/octet-stream': { schema: BYTES } } },
          '206': { description: 'The range asked for.', content: { 'application/octet-stream': { schema: BYTES } } },
          '304': { description: 'Not modified: the ETag matches.' },
          '416': { description: 'The range lies beyond the artifact.' },
          ...errorResponses(),
        },
      },
    },
  ];
}
