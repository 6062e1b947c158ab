import express from 'express';
import type { RequestHandler, Response, Router } from 'express';
import { deviceDefinition, invalidArgument, notFound, permissionOf } from '@outpost/shared';
import type { Device } from '@outpost/shared';
import type { ResourceHandle } from '../resources/resource-handle.js';
import { formatDuration, parseDuration } from './downsampling.js';
import type { MetricsHistory } from './metrics-history.js';
import type { PrometheusMetrics } from './prometheus.js';

/** Reading a device's history needs what reading the device needs. */
export const METRICS_HISTORY_PERMISSION = permissionOf(deviceDefinition, 'get');
/** Scraping /metrics (fleet-wide figures): on scope `*`. */
export const PROMETHEUS_PERMISSION = 'services/devices.outpost/permissions/metrics.get';

const DEFAULT_RANGE_MS = 60 * 60_000;
const MIN_STEP_MS = 1_000;
const MAX_POINTS = 11_000;
/** The query parameters of a device's history, and what each means (the OpenAPI document says it too). */
export const METRICS_QUERY_PARAMETERS = {
  from: 'RFC 3339 start, e.g. 2025-01-31T12:00:00Z; default: an hour before `to`.',
  to: 'RFC 3339 end (exclusive); default: now.',
  step: `A duration of at least 1s (60s, 5m, 1h); default 60 s, or what keeps the answer under 1000 points; from..to over step is at most ${MAX_POINTS} points.`,
} as const;
const QUERY_PARAMETERS = new Set(Object.keys(METRICS_QUERY_PARAMETERS));

export interface MetricsRoutesOptions {
  history: MetricsHistory;
  prometheus: PrometheusMetrics;
  devices: ResourceHandle<Device>;
  /** the API-key middleware: puts the principal on res.locals */
  authenticate: RequestHandler;
  /** throws PERMISSION_DENIED (or UNAUTHENTICATED) */
  authorize(principal: unknown, permission: string, resourceName: string): void;
  now?: () => number;
}

/**
 * `GET /v1/{device_name}/metrics?from=&to=&step=`: a device's metrics history (RFC 3339 `from` and `to`,
 * default the last hour; `step` like 60s, 5m or 1h, default 60 s or what keeps the answer under 1000 points).
 * `GET /metrics`: the Prometheus exposition. Both need an API key. Mount before the resource router, which
 * owns the rest of /v1.
 */
export function metricsRoutes(options: MetricsRoutesOptions): Router {
  const { history, devices, authorize } = options;
  const now = options.now ?? Date.now;
  const router = express.Router();

  router.get(
    '/v1/projects/:project/regions/:region/devices/:device/metrics',
    options.authenticate,
    (req, res: Response) => {
      const { project, region, device } = req.params as Record<string, string>;
      const name = `projects/${project}/regions/${region}/devices/${device}`;
      authorize(res.locals['principal'], METRICS_HISTORY_PERMISSION, name);
      const query: Record<string, unknown> = req.query;
      for (const key of Object.keys(query)) {
        if (!QUERY_PARAMETERS.has(key)) throw invalidArgument(`unknown query parameter "${key}" (from, to, step)`);
      }
      if (!devices.find(name)) throw notFound(`device "${name}" not found`);
      const nowMs = now();
      const toMs = timeParameter(query['to'], 'to') ?? nowMs;
      const fromMs = timeParameter(query['from'], 'from') ?? toMs - DEFAULT_RANGE_MS;
      if (fromMs >= toMs) throw invalidArgument('from must be before to');
      const stepMs = stepParameter(query['step']) ?? defaultStep(toMs - fromMs);
      if ((toMs - fromMs) / stepMs > MAX_POINTS) {
        throw invalidArgument(`from..to over step ${formatDuration(stepMs)} is more than ${MAX_POINTS} points`);
      }
      const series = history.query({ device: name, fromMs, toMs, stepMs, nowMs });
      res.json({
        name,
        from: new Date(fromMs).toISOString(),
        to: new Date(toMs).toISOString(),
        step: formatDuration(stepMs),
        resolution: series.resolution,
        points: series.points,
      });
    },
  );

  router.get('/metrics', options.authenticate, async (_req, res: Response) => {
    authorize(res.locals['principal'], PROMETHEUS_PERMISSION, '*');
    const { contentType, body } = await options.prometheus.render();
    res.type(contentType).send(body);
  });

  return router;
}

function timeParameter(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  const text = typeof value === 'string' ? value : '';
  const ms = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/i.test(text) ? Date.parse(text) : NaN;
  if (Number.isNaN(ms)) throw invalidArgument(`${name} must be an RFC 3339 time, e.g. 2025-01-31T12:00:00Z`);
  return ms;
}

function stepParameter(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const ms = typeof value === 'string' ? parseDuration(value) : undefined;
  if (ms === undefined || ms < MIN_STEP_MS) {
    throw invalidArgument('step must be a duration of at least 1s, e.g. 60s, 5m or 1h');
  }
  return ms;
}

/** 60 s, or coarser (whole minutes) so that the answer stays within 1000 points. */
function defaultStep(rangeMs: number): number {
  const minutes = Math.max(1, Math.ceil(rangeMs / 1000 / 60_000));
  return minutes * 60_000;
}
