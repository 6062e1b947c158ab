import { DEVICE_PATTERN } from '@outpost/shared';
import { METRICS_HISTORY_PERMISSION, METRICS_QUERY_PARAMETERS } from '../metrics/metrics-routes.js';
import type { DocumentedRoute } from './documented-route.js';
import { ok, operationStem, resourcePath } from './kind-operations.js';
import type { JsonSchema } from './openapi-types.js';

const number: JsonSchema = { type: 'number' };

/** One point of the history (metrics-history.ts MetricsPoint). */
const POINT: JsonSchema = {
  type: 'object',
  properties: {
    time: { type: 'string', description: 'RFC 3339 start of the step.' },
    samples: { type: 'integer', description: 'The samples the point is made of.' },
    cpuPercent: number,
    cpuPercentMax: number,
    memoryUsedBytes: number,
    memoryTotalBytes: number,
    storageUsedBytes: { type: 'number', description: 'Over every reported filesystem.' },
    storageTotalBytes: number,
    temperatureCelsius: number,
    load1: number,
    uptimeSeconds: number,
  },
  required: [
    'time',
    'samples',
    'cpuPercent',
    'cpuPercentMax',
    'memoryUsedBytes',
    'memoryTotalBytes',
    'storageUsedBytes',
    'storageTotalBytes',
    'uptimeSeconds',
  ],
  additionalProperties: false,
};

/** `GET /v1/{device}/metrics` (metrics-routes.ts): a device's metrics history. */
export function metricsHistoryRoutes(): DocumentedRoute[] {
  return [
    {
      path: `${resourcePath(DEVICE_PATTERN)}/metrics`,
      methods: ['get'],
      operation: {
        operationId: `${operationStem(DEVICE_PATTERN)}.metrics`,
        summary: "A device's metrics history",
        description:
          'Averages (and peaks) of the samples the device reported, one point per step, from the finest ' +
          'retained resolution that covers the range. Unknown query parameters are refused.',
        tags: ['devices'],
        'x-outpost-permission': METRICS_HISTORY_PERMISSION,
        parameters: Object.entries(METRICS_QUERY_PARAMETERS).map(([name, description]) => ({
          name,
          in: 'query' as const,
          description,
          schema: { type: 'string' },
        })),
        responses: ok('The points of the range.', {
          type: 'object',
          properties: {
            name: { type: 'string' },
            from: { type: 'string' },
            to: { type: 'string' },
            step: { type: 'string' },
            resolution: { type: 'string', description: "The tier the points come from: 'raw', '60s' or '3600s'." },
            points: { type: 'array', items: POINT },
          },
          required: ['name', 'from', 'to', 'step', 'resolution', 'points'],
          additionalProperties: false,
        }),
      },
    },
  ];
}
