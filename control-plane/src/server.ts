import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import express from 'express';
import { openDatabase } from './db/open-database.js';
import { startWalCheckpointer } from './db/wal-checkpointer.js';
import { ApiKeyStore, Authorizer, adminKeyAnnouncement, authenticateRequest, iamRoutes } from './iam/index.js';
import type { Principal } from './iam/index.js';
import { ResourceEngine } from './resources/resource-engine.js';
import { createDeviceService } from './devices/device-service.js';
import { createLimitsService } from './limits/index.js';
import { AgentGateway } from './gateway/agent-gateway.js';
import { ArtifactStore } from './os/artifact-store.js';
import { artifactRoutes } from './os/artifact-routes.js';
import { createOsCatalog } from './os/os-catalog-service.js';
import { createHealthCheckService } from './healthchecks/health-check-service.js';
import { DEFAULT_METRICS_RETENTION_DAYS } from './metrics/downsampling.js';
import { MetricsHistory } from './metrics/metrics-history.js';
import { recordDeviceMetrics } from './metrics/metrics-recorder.js';
import { metricsRoutes } from './metrics/metrics-routes.js';
import { createPrometheusMetrics } from './metrics/prometheus.js';
import { createResourceRouter } from './resources/http/resource-router.js';
import { DEFAULT_STREAM_LIMITS, StreamAdmission } from './resources/watch/stream-admission.js';
import { createApplicationsService } from './applications/applications-service.js';
import { powerMethods } from './devices/power-methods.js';
import { transferRoutes } from './transfer/transfer-routes.js';
import { dashboardAssetDirectory } from './web/asset-directory.js';
import { dashboardRoutes } from './web/dashboard-routes.js';
import { apiErrorHandler, unknownRouteHandler } from './server/http-errors.js';
import type { ServerConfig } from './server/config.js';
import type { Logger } from './server/logger.js';
import type { RunningServer } from './server/run.js';
import { unauthenticated } from '@outpost/shared';
import type { ResourceDefinition } from '@outpost/shared';
import type { ResourceRules } from './resources/resource-rules.js';

const BODY_LIMIT = '8mb';

/** Resources beyond the built-in services (tests register their own). */
export interface ServerExtras {
  resources?: readonly { def: ResourceDefinition; rules?: ResourceRules }[];
}

export interface StartedServer extends RunningServer {
  engine: ResourceEngine;
  gateway: AgentGateway;
  /** artifact GETs served since start (a rollback to the retained slot must add none) */
  artifactDownloads(): number;
}

/** The composition root of the control plane: database, engine, services, HTTP. */
export async function startServer(
  config: ServerConfig,
  logger: Logger,
  extras: ServerExtras = {},
): Promise<StartedServer> {
  const dbFile = join(config.dataDir, 'outpost.db');
  const db = openDatabase(dbFile);
  const checkpointer = startWalCheckpointer(db, dbFile, (message) =>
    logger.error({ message }, 'background WAL checkpoint failed'),
  );
  const engine = new ResourceEngine(db, { checkpoints: checkpointer });
  for (const { def, rules } of extras.resources ?? []) engine.register(def, rules);
  const artifacts = new ArtifactStore(join(config.dataDir, 'artifacts'));
  const catalog = createOsCatalog(engine, artifacts);
  const limits = createLimitsService(engine);
  const devices = createDeviceService(engine, db, { extraRules: [catalog.deviceRules, limits.deviceRules] });
  limits.bootstrap();
  const healthChecks = createHealthCheckService(engine);
  // remote operations go over the gateway, which is created below
  const sendCommand = (device: string, command: string, args: unknown, timeoutMs: number): Promise<unknown> =>
    gateway.sendCommand(device, command, args, timeoutMs);
  const applications = createApplicationsService(engine, devices.devices, sendCommand);
  const metricsHistory = new MetricsHistory(db, {
    retentionDays: config.metricsRetentionDays ?? DEFAULT_METRICS_RETENTION_DAYS,
  });
  const metricsRecorder = recordDeviceMetrics(devices.devices, metricsHistory);
  const keys = new ApiKeyStore(db);
  const authorizer = new Authorizer({ ancestorsOf: limits.ancestorsOf });

  const admin = keys.ensureBootstrapAdminKey(config.adminKey);
  const announcement = adminKeyAnnouncement(admin);
  if (announcement) process.stdout.write(announcement + '\n');

  const resources = createResourceRouter({
    engine,
    authorize: (principal, permission, name) => {
      if (!principal) throw unauthenticated('request is not authenticated');
      authorizer.authorize(principal as Principal, permission, name);
    },
    customMethods: [
      ...devices.customMethods,
      ...limits.customMethods,
      ...applications.customMethods,
      ...powerMethods(devices.devices, sendCommand),
    ],
    watchOptions: { maxBufferedBytes: config.watchStreamMaxBytes },
    streamAdmission: {
      admission: new StreamAdmission({
        perKey: config.watchStreamsPerKey ?? DEFAULT_STREAM_LIMITS.perKey,
        perServer: config.watchStreamsPerServer ?? DEFAULT_STREAM_LIMITS.perServer,
      }),
      ownerOf: (principal) => (principal as Principal | undefined)?.name ?? 'anonymous',
    },
    onStreamError: (err) => logger.error({ err }, 'watch stream failed'),
  });
  const requireApiKey = authenticateRequest(keys);
  const authorize = (principal: unknown, permission: string, name: string): void => {
    if (!principal) throw unauthenticated('request is not authenticated');
    authorizer.authorize(principal as Principal, permission, name);
  };
  // the gateway is created below; the gauges read it at scrape time
  const prometheus = createPrometheusMetrics(devices.devices, {
    watchStreams: () => resources.openStreams(),
    gatewaySessions: () => gateway.connectedCount,
    statusWriteBatches: () => gateway.statusWriteBatches,
    artifactDownloads: () => artifactDownloads,
  });

  let artifactDownloads = 0;
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.use(express.json({ limit: BODY_LIMIT }));
  app.get('/healthz', (_req, res) => void res.json({ ok: true }));
  app.use(iamRoutes(keys, authorizer));
  app.use(
    artifactRoutes(
      artifacts,
      {
        isDevice: (secret) => devices.credentials.deviceOf(secret) !== undefined,
        authorizeKey: (secret, permission) => {
          const principal = keys.authenticate(secret);
          if (!principal) throw unauthenticated('invalid or revoked API key or device credential');
          authorizer.authorize(principal, permission, '*');
        },
      },
      (sha256, device) => {
        artifactDownloads++;
        logger.info({ sha256, device }, 'artifact download');
      },
    ),
  );
  app.use(
    metricsRoutes({
      history: metricsHistory,
      prometheus,
      devices: devices.devices,
      authenticate: requireApiKey,
      authorize,
    }),
  );
  app.use(
    transferRoutes({
      devices: devices.devices,
      channels: () => gateway.channels,
      authenticate: requireApiKey,
      authorize,
      logger: logger.child({ component: 'transfer' }),
    }),
  );
  app.use(dashboardRoutes(dashboardAssetDirectory()));
  app.use(
    '/v1',
    (req, res, next) => (resources.isPublic(req.method, req.path) ? next() : requireApiKey(req, res, next)),
    resources.router,
  );
  app.use(unknownRouteHandler());
  app.use(apiErrorHandler(logger));

  const server = createServer(app);
  server.requestTimeout = 0; // a large upload may take longer than any fixed limit; headers still time out
  const gateway = new AgentGateway({
    engine,
    devices: devices.devices,
    credentials: devices.credentials,
    resolveOsImage: catalog.resolveOsImage,
    osVersions: catalog.osVersions,
    resolveHealthChecks: healthChecks.resolveHealthChecks,
    specDependencies: [healthChecks.specDependency, applications.specDependency],
    resolvePods: applications.resolvePods,
    onPodStatus: applications.recordPodStatus,
    logger: logger.child({ component: 'gateway' }),
    heartbeatSeconds: config.heartbeatSeconds,
  });
  gateway.attach(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const url = `http://${address.address.includes(':') ? `[${address.address}]` : address.address}:${address.port}`;

  return {
    url,
    engine,
    gateway,
    artifactDownloads: () => artifactDownloads,
    close: async () => {
      resources.closeStreams();
      gateway.close();
      metricsRecorder.stop();
      applications.stop();
      prometheus.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await checkpointer.stop();
      db.close();
    },
  };
}
