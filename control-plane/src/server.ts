import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import express from 'express';
import { isStorageFull, unlessStorageFull } from './server/storage-full.js';
import {
  ApiKeyStore,
  Authorizer,
  FailedAuthLimiter,
  TrustedProxies,
  adminKeyAnnouncement,
  authenticateRequest,
  clientAddressOf,
  iamRoutes,
  rateLimitKeyOf,
} from './iam/index.js';
import type { Principal } from './iam/index.js';
import { ResourceEngine } from './resources/resource-engine.js';
import { joinCluster } from './cluster/cluster-member.js';
import type { ClusterMember } from './cluster/cluster-member.js';
import { openClusterLinks } from './cluster/cluster-links.js';
import type { ClusterLinks } from './cluster/cluster-links.js';
import { metricsPruneJob } from './cluster/jobs/metrics-prune-job.js';
import { runJobsHere } from './cluster/jobs/periodic-job.js';
import { shareRevocations } from './cluster/revocation-notices.js';
import { openStorage, type SqliteDatabase } from './resources/storage/open-storage.js';
import { createDeviceService } from './devices/device-service.js';
import { createLimitsService } from './limits/index.js';
import { AgentGateway } from './gateway/agent-gateway.js';
import type { ChannelHub } from './gateway/channels/channel-hub.js';
import { ArtifactStore } from './os/artifact-store.js';
import { artifactHolds } from './os/artifact-holds.js';
import { artifactRoutes } from './os/artifact-routes.js';
import { DeviceDownloads } from './os/device-downloads.js';
import { deviceArtifactAccess } from './os/device-artifact-access.js';
import { artifactGcMethod } from './os/artifact-gc.js';
import { createOsCatalog } from './os/os-catalog-service.js';
import { createHealthCheckService } from './healthchecks/health-check-service.js';
import { DEFAULT_METRICS_RETENTION_DAYS } from './metrics/downsampling.js';
import { MetricsHistory } from './metrics/metrics-history.js';
import { recordDeviceMetrics } from './metrics/metrics-recorder.js';
import { metricsRoutes } from './metrics/metrics-routes.js';
import { createPrometheusMetrics } from './metrics/prometheus.js';
import { createResourceRouter } from './resources/http/resource-router.js';
import { openApiDocument } from './openapi/openapi-document.js';
import { openApiRoutes } from './openapi/openapi-route.js';
import { DEFAULT_STREAM_LIMITS, StreamAdmission } from './resources/watch/stream-admission.js';
import { createApplicationsService } from './applications/applications-service.js';
import { powerMethods } from './devices/power-methods.js';
import { transferRoutes } from './transfer/transfer-routes.js';
import { RemoteSessionAudit } from './remote/remote-session-audit.js';
import { remoteAccessEndpoint } from './remote/remote-access-endpoint.js';
import { SessionsByKey } from './remote/sessions-by-key.js';
import { dashboardAssetDirectory } from './web/asset-directory.js';
import { dashboardRoutes } from './web/dashboard-routes.js';
import { apiErrorHandler, unknownRouteHandler } from './server/http-errors.js';
import {
  DEFAULT_ARTIFACT_LIMITS,
  DEFAULT_HTTP_TIMEOUTS,
  DEFAULT_SHED_UPGRADES_LAG_MS,
  storageTargetOf,
  type ServerConfig,
} from './server/config.js';
import { jsonBody } from './server/json-body.js';
import { StalledBodyGuard } from './server/stalled-body-guard.js';
import { createListener } from './server/tls-listener.js';
import { answerMalformedRequests } from './server/malformed-request-answer.js';
import type { Logger } from './server/logger.js';
import type { RunningServer } from './server/run.js';
import { remoteSessionDefinition, unauthenticated } from '@outpost/shared';
import type { ResourceDefinition } from '@outpost/shared';
import type { ResourceRules } from './resources/resource-rules.js';
import type { CustomMethod } from './resources/http/custom-method.js';

/** JSON bodies of authenticated requests; the public ones (a device registering) get far less. */
const BODY_LIMIT_BYTES = 8 * 1024 * 1024;
const PUBLIC_BODY_LIMIT_BYTES = 256 * 1024;

/** Resources beyond the built-in services (tests register their own). */
export interface ServerExtras {
  resources?: readonly { def: ResourceDefinition; rules?: ResourceRules }[];
  /** called with the SQLite database as soon as it is open (tests fill it up: `PRAGMA max_page_count`) */
  onDatabaseOpened?: (db: SqliteDatabase) => void;
}

export interface StartedServer extends RunningServer {
  engine: ResourceEngine;
  gateway: AgentGateway;
  /** artifact GETs served since start (a rollback to the retained slot must add none) */
  artifactDownloads(): number;
  /** what the HTTP API mounts: Express's routes and the resource router's custom methods (the OpenAPI test's list) */
  mounted: { app: express.Express; customMethods: readonly CustomMethod[] };
}

/** The composition root of the control plane: database, engine, services, HTTP. */
export async function startServer(
  config: ServerConfig,
  logger: Logger,
  extras: ServerExtras = {},
): Promise<StartedServer> {
  // everything is kept where --database says: resources, API keys, device credentials, tokens, metrics history
  const target = storageTargetOf(config);
  const opened = openStorage(target, {
    onSqliteOpened: extras.onDatabaseOpened,
    onCheckpointError: (message) => logger.error({ message }, 'background WAL checkpoint failed'),
    previousSideFile: join(config.dataDir, 'outpost.db'),
    onSideFileImported: (imported) => logger.info(imported, 'imported the side file of an earlier release'),
    onSideFileNotImported: (file) =>
      logger.warn({ file }, 'side file of an earlier release not imported: the database was not at schema version 1'),
  });
  const engine = new ResourceEngine(opened.storage, { checkpoints: opened.checkpoints });
  // on PostgreSQL this process is one replica of several (cluster/); it joins before the gateway starts, which
  // must not mark Offline the devices another replica holds
  let cluster: ClusterMember | undefined;
  // and it records which device links it holds, relaying commands for the others' devices (cluster-links.ts)
  let links: ClusterLinks | undefined;
  const { coordination } = engine;
  if (coordination !== undefined) {
    try {
      links = await openClusterLinks({
        engine,
        coordination,
        heartbeatSeconds: config.heartbeatSeconds,
        ...(config.clusterCaFile === undefined ? {} : { relayCa: readFileSync(config.clusterCaFile, 'utf8') }),
        logger: logger.child({ component: 'cluster-links' }),
      });
      cluster = await joinCluster({
        engine,
        coordination,
        logger: logger.child({ component: 'cluster' }),
      });
    } catch (err) {
      await links?.close();
      await opened.close();
      throw err;
    }
  }
  for (const { def, rules } of extras.resources ?? []) engine.register(def, rules);
  const artifacts = new ArtifactStore(
    config.artifactDir ?? join(config.dataDir, 'artifacts'),
    {
      maxBytes: config.maxArtifactBytes ?? DEFAULT_ARTIFACT_LIMITS.maxArtifactBytes,
      freeSpaceReserveBytes: config.freeSpaceReserveBytes ?? DEFAULT_ARTIFACT_LIMITS.freeSpaceReserveBytes,
    },
    // replicas sharing the directory keep what another one serves from its garbage collection
    artifactHolds(cluster?.artifactLocks, (err) => logger.warn({ err }, 'artifact lock failed')),
  );
  const catalog = createOsCatalog(engine, artifacts);
  // moving a project or organization is checked on its destination too (the authorizer is created below)
  const limits = createLimitsService(engine, {
    authorize: (principal, permission, name) => authorize(principal, permission, name),
  });
  const devices = createDeviceService(engine, { extraRules: [catalog.deviceRules], meteredBy: limits });
  // on a full disk the server starts anyway, serving reads; what is skipped here is done at the next start
  const skippedForFullDisk = (what: string) => (err: unknown) =>
    logger.error({ err }, `storage is full: ${what} skipped until a later start`);
  unlessStorageFull(() => limits.bootstrap(), skippedForFullDisk('creating the default devices plans'));
  // COMMAND checks and pods are code execution on devices: their writes need devices.exec (authorizer below)
  const authorizeExec = (principal: unknown, permission: string, name: string): void =>
    authorize(principal, permission, name);
  const healthChecks = createHealthCheckService(engine, authorizeExec);
  // remote operations go over the gateway, which is created below
  const sendCommand = (device: string, command: string, args: unknown, timeoutMs: number): Promise<unknown> =>
    gateway.sendCommand(device, command, args, timeoutMs);
  const backgroundWriteFailed = (err: unknown, what: string): void =>
    logger.error({ err, storageFull: isStorageFull(err) }, `${what} failed`);
  const applications = createApplicationsService(
    engine,
    devices.devices,
    authorizeExec,
    sendCommand,
    backgroundWriteFailed,
  );
  const metricsHistory = new MetricsHistory(engine.stores.metricsSeries, {
    retentionDays: config.metricsRetentionDays ?? DEFAULT_METRICS_RETENTION_DAYS,
  });
  const metricsRecorder = recordDeviceMetrics(devices.devices, metricsHistory, backgroundWriteFailed);
  // periodic work on the shared store runs on one replica at a time (the leader); a lone SQLite server runs it
  const backgroundJobs = [metricsPruneJob(metricsHistory, backgroundWriteFailed)];
  const stopLocalJobs = cluster === undefined ? runJobsHere(backgroundJobs) : () => {};
  cluster?.lead(backgroundJobs);
  const keys = new ApiKeyStore(engine.stores.apiKeys);
  // the audit records of remote terminals and port forwards (issue 21)
  const remoteSessions = engine.register(remoteSessionDefinition);
  const authorizer = new Authorizer({ ancestorsOf: limits.ancestorsOf });

  const customMethods = [
    ...devices.customMethods,
    ...limits.customMethods,
    ...applications.customMethods,
    ...powerMethods(devices.devices, sendCommand),
    artifactGcMethod(artifacts, catalog.referencedArtifacts, () => new Date()),
  ];
  const resources = createResourceRouter({
    engine,
    authorize: (principal, permission, name) => {
      if (!principal) throw unauthenticated('request is not authenticated');
      authorizer.authorize(principal as Principal, permission, name);
    },
    customMethods,
    watchOptions: { maxBufferedBytes: config.watchStreamMaxBytes },
    streamAdmission: {
      admission: new StreamAdmission({
        perKey: config.watchStreamsPerKey ?? DEFAULT_STREAM_LIMITS.perKey,
        perServer: config.watchStreamsPerServer ?? DEFAULT_STREAM_LIMITS.perServer,
      }),
      ownerOf: (principal) => (principal as Principal | undefined)?.name ?? 'anonymous',
    },
    onStreamError: (err) => logger.error({ err }, 'watch stream failed'),
    authorizationDependsOn: [limits.handles.organizations, limits.handles.projects],
  });
  // a revoked key's open watch streams end at once (a lapsed grant's too: the router re-checks on hierarchy changes)
  keys.onRevoke((keyName) => resources.endStreamsOf(keyName, unauthenticated(`${keyName} was revoked`)));
  // one budget of wrong keys per source, for the REST API and the remote-access WebSockets
  const failedAuth = new FailedAuthLimiter();
  const trustedProxies = new TrustedProxies(config.trustedProxies);
  const requireApiKey = authenticateRequest(keys, { limiter: failedAuth, trustedProxies });
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
  const stalledBodies = new StalledBodyGuard(
    (config.bodyTimeoutSeconds ?? DEFAULT_HTTP_TIMEOUTS.bodyTimeoutSeconds) * 1000,
  );
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  // no body is parsed before its route has authenticated the caller: each route reads its own body
  app.use(stalledBodies.middleware());
  // on PostgreSQL, whether this replica leads is part of its health
  app.get('/healthz', (_req, res) =>
    cluster === undefined
      ? void res.json({ ok: true })
      : void res.json({
          ok: true,
          cluster: {
            leader: cluster.isLeader,
            position: cluster.position,
            jobRuns: Object.fromEntries(backgroundJobs.map((job) => [job.name, job.runs])),
          },
        }),
  );
  app.use(openApiRoutes(openApiDocument({ definitions: engine.all().map((handle) => handle.def), customMethods })));
  app.use(iamRoutes(keys, authorizer, requireApiKey));
  // what a replica re-checks once it listens again (a revocation elsewhere meanwhile was not told to it)
  const deviceDownloads = new DeviceDownloads();
  const remoteSessionsByKey = new SessionsByKey();
  app.use(
    artifactRoutes(
      artifacts,
      {
        ...deviceArtifactAccess(devices.credentials),
        mayDeviceFetch: (device, sha256) => {
          const doc = devices.devices.find(device);
          return doc !== undefined && catalog.isPublishedFor(doc, sha256);
        },
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
      deviceDownloads,
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
  const authenticated = express.Router().use(requireApiKey, ...jsonBody({ limitBytes: BODY_LIMIT_BYTES }));
  const publicRoute = express.Router().use(...jsonBody({ limitBytes: PUBLIC_BODY_LIMIT_BYTES }));
  app.use(
    '/v1',
    (req, res, next) => (resources.isPublic(req.method, req.path) ? publicRoute : authenticated)(req, res, next),
    resources.router,
  );
  app.use(unknownRouteHandler());
  app.use(apiErrorHandler(logger));

  const headersTimeoutMs = (config.headersTimeoutSeconds ?? DEFAULT_HTTP_TIMEOUTS.headersTimeoutSeconds) * 1000;
  // Node checks the headers deadline on this period (default 30 s, too coarse for a deadline of a few seconds)
  const listener = createListener(
    config.tls,
    { connectionsCheckingInterval: Math.min(1000, headersTimeoutMs / 2) },
    app,
    logger.child({ component: 'tls' }),
  );
  const { server } = listener;
  answerMalformedRequests(server);
  server.headersTimeout = headersTimeoutMs;
  // a large upload may take longer than any fixed limit: bodies are cut when they stall (StalledBodyGuard)
  server.requestTimeout = 0;
  server.keepAliveTimeout = (config.keepAliveTimeoutSeconds ?? DEFAULT_HTTP_TIMEOUTS.keepAliveTimeoutSeconds) * 1000;
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
    otherUpgrades: remoteAccessEndpoint({
      devices: devices.devices,
      channels: (): ChannelHub => gateway.channels,
      audit: new RemoteSessionAudit(remoteSessions),
      authenticate: (secret) => {
        const principal = keys.authenticate(secret);
        return principal === null ? undefined : { principal, keyId: principal.name };
      },
      authorize,
      failedAuthentication: (req) => {
        const forwardedFor = req.headers['x-forwarded-for'];
        const address = clientAddressOf(
          req.socket.remoteAddress,
          Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor,
          trustedProxies,
        );
        return failedAuth.fail(rateLimitKeyOf(address));
      },
      onKeyRevoked: (listener) => keys.onRevoke(listener),
      sessions: remoteSessionsByKey,
      logger: logger.child({ component: 'remote-access' }),
    }),
    logger: logger.child({ component: 'gateway' }),
    heartbeatSeconds: config.heartbeatSeconds,
    shedUpgradesAtLagMs: config.shedUpgradesLagMs ?? DEFAULT_SHED_UPGRADES_LAG_MS,
    markOfflineAtStart: cluster === undefined || cluster.aloneAtStart,
    ...(links === undefined
      ? {}
      : { presence: links.presence, elsewhere: links.elsewhere, clusterUpgrades: links.upgrade }),
  });
  gateway.attach(server);
  // a key or device credential revoked through another replica closes what it holds here too
  const stopSharingRevocations =
    cluster === undefined
      ? () => {}
      : shareRevocations({
          keys,
          credentials: devices.credentials,
          cluster,
          catchUp: () => {
            for (const owner of [...resources.streamOwners(), ...remoteSessionsByKey.keyIds()])
              if (owner.startsWith('apiKeys/') && !keys.has(owner)) keys.revokedElsewhere(owner);
            for (const device of deviceDownloads.revoked()) devices.credentials.revokedElsewhere(device);
            gateway
              .recheckCredentials((device) => devices.credentials.revokedElsewhere(device))
              .catch((err: unknown) => logger.error({ err }, 'cluster: re-checking device credentials failed'));
          },
          onError: (err, what) => logger.error({ err }, `cluster: ${what} failed`),
        });
  // idempotent: a second close (after the first or while it runs) waits for the same one
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => (closing ??= closeOnce());
  const closeOnce = async (): Promise<void> => {
    stopSharingRevocations();
    await cluster?.close();
    resources.closeStreams();
    gateway.close();
    await links?.close();
    stopLocalJobs();
    metricsRecorder.stop();
    applications.stop();
    prometheus.stop();
    stalledBodies.close();
    listener.close();
    await new Promise<void>((resolve) => {
      server.close(() => resolve()); // called (with an error) also when it never listened
      server.closeIdleConnections();
    });
    await opened.close();
  };
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    });
  } catch (err) {
    await close();
    throw err;
  }
  const address = server.address() as AddressInfo;
  const url = `${listener.scheme}://${address.address.includes(':') ? `[${address.address}]` : address.address}:${address.port}`;
  try {
    await links?.start(url, gateway, devices.devices);
  } catch (err) {
    await close();
    throw err;
  }

  // only once the port is ours: a start that fails before must not have shown (and so lost) a new key
  let announcement: string | undefined;
  unlessStorageFull(
    () => (announcement = adminKeyAnnouncement(keys.ensureBootstrapAdminKey(config.adminKey))),
    skippedForFullDisk('creating the admin key'),
  );

  return {
    url,
    ...(announcement === undefined ? {} : { announcement }),
    engine,
    gateway,
    mounted: { app, customMethods },
    artifactDownloads: () => artifactDownloads,
    ...(listener.reloadCertificate === undefined ? {} : { reloadCertificate: listener.reloadCertificate }),
    ...(listener.tlsConnections === undefined ? {} : { tlsConnections: listener.tlsConnections }),
    close,
  };
}
