import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { postgresMissing } from './control-plane/test/helpers/postgres-available.js';

const here = (p: string): string => fileURLToPath(new URL(p, import.meta.url));

/**
 * The suites that run a real control plane a second time with its resources in PostgreSQL (project `postgres`,
 * OUTPOST_TEST_DATABASE=postgres: one throwaway cluster for the run, a database per server; a server restarted on
 * its data folder reopens its database). The engine's own suites run on both stores within one file
 * (control-plane/test/helpers/storages.ts: describeStorages), as do the PostgreSQL-only suites' own clusters.
 *
 * Left on SQLite only, because what they check does not depend on the store:
 * - openapi/*: the document and the mounted routes are the same on either store (and openapi.test is the slowest
 *   of the server suites);
 * - server/{malformed-*,request-limits,node-flags,watch-limit-flags,config,run,run-transport,tls-*}: HTTP parsing,
 *   flags and the process around the server, all before any store is reached; server/full-storage*: SQLite's
 *   SQLITE_FULL on a full disk (PostgreSQL's full-disk codes: server/storage-full-codes.test.ts);
 * - resources/stored-columns.test.ts and storage/sqlite/*, storage/{migrations,service-stores-migration}.test.ts:
 *   SQLite's own columns, files and migrations (PostgreSQL's: storage/pg-*.test.ts);
 * - web/browser/*: the dashboard in Chromium, over the same API the web/dashboard-* suites run on both stores;
 * - test/integration/readme-examples: the README's commands as written (`npm start` on its SQLite default);
 * - test/integration/cluster-*, connect-shedding: replicas sharing one PostgreSQL, always (their own cluster);
 * - test/integration/{bench-*,bin-launchers,ci-node22,package-deb,readme-examples-parsing}: no control plane runs.
 * Every other test/integration suite (the agent against a real control plane) is listed here.
 */
const POSTGRES_SERVER_SUITES = [
  'control-plane/test/resources/batch-update.test.ts',
  'control-plane/test/resources/cas.test.ts',
  'control-plane/test/resources/crud.test.ts',
  'control-plane/test/resources/name-errors.test.ts',
  'control-plane/test/resources/paging.test.ts',
  'control-plane/test/resources/watch-reauthorization.test.ts',
  'control-plane/test/resources/watch-resume.test.ts',
  'control-plane/test/resources/watch-slow-reader.test.ts',
  'control-plane/test/resources/watch.test.ts',
  'control-plane/test/devices/device-api.test.ts',
  'control-plane/test/devices/provisioning.test.ts',
  'control-plane/test/devices/device-counts.test.ts',
  'control-plane/test/devices/provisioning-tokens.test.ts',
  'control-plane/test/devices/issued-credential-downloads.test.ts',
  'control-plane/test/iam/failed-auth.test.ts',
  'control-plane/test/iam/privileges.test.ts',
  'control-plane/test/metrics/metrics-api.test.ts',
  'control-plane/test/server/stores-location.test.ts',
  'control-plane/test/limits/devices.test.ts',
  'control-plane/test/limits/hierarchy.test.ts',
  'control-plane/test/limits/metering.test.ts',
  'control-plane/test/limits/request-round-trips.test.ts',
  'control-plane/test/limits/requests.test.ts',
  'control-plane/test/limits/pending-reasons.test.ts',
  'control-plane/test/gateway/device-reports.test.ts',
  'control-plane/test/gateway/status-writer.test.ts',
  'control-plane/test/resources/batch-create.test.ts',
  'control-plane/test/resources/watch-bounds.test.ts',
  'control-plane/test/devices/device-config-validation.test.ts',
  'control-plane/test/devices/update-policy-validation.test.ts',
  'control-plane/test/limits/cli.test.ts',
  'control-plane/test/limits/errors.test.ts',
  'control-plane/test/limits/rest-shapes.test.ts',
  'control-plane/test/limits/states-and-transitions.test.ts',
  'control-plane/test/gateway/offline-at-start.test.ts',
  'control-plane/test/gateway/replaced-connection.test.ts',
  'control-plane/test/gateway/spec-requests.test.ts',
  'control-plane/test/applications/pods-api.test.ts',
  'control-plane/test/cli/configuration-status.test.ts',
  'control-plane/test/cli/device-tables.test.ts',
  'control-plane/test/cli/rollout-commands.test.ts',
  'control-plane/test/cli/closed-stdout.test.ts',
  'control-plane/test/cli/wildcard-parent.test.ts',
  'control-plane/test/healthchecks/cli.test.ts',
  'control-plane/test/healthchecks/exec-permission.test.ts',
  'control-plane/test/healthchecks/health-check-api.test.ts',
  'control-plane/test/healthchecks/reported-status.test.ts',
  'control-plane/test/os/artifact-access.test.ts',
  'control-plane/test/os/artifact-downloads-kept.test.ts',
  'control-plane/test/os/catalog.test.ts',
  'control-plane/test/transfer/transfer-api.test.ts',
  'control-plane/test/transfer/transfer-client.test.ts',
  'control-plane/test/web/dashboard-api.test.ts',
  'control-plane/test/web/dashboard-live-counts.test.ts',
  'control-plane/test/web/dashboard-serving.test.ts',
  'control-plane/test/web/dashboard-remote-ops.test.ts',
  // the agent and its tunnels, TLS and nginx against a real control plane
  'test/integration/device-link.test.ts',
  'test/integration/device-key-pair.test.ts',
  'test/integration/credential-revocation.test.ts',
  'test/integration/rollout-resume.test.ts',
  'test/integration/debug-bundle-secrets.test.ts',
  'test/integration/device-config-proxy-ssh.test.ts',
  'test/integration/hostile-device-scp.test.ts',
  'test/integration/interrupted-upload.test.ts',
  'test/integration/maintenance-power.test.ts',
  'test/integration/network-config-dead-man.test.ts',
  'test/integration/nginx-proxy.test.ts',
  'test/integration/os-upgrade.test.ts',
  'test/integration/recovery-key.test.ts',
  'test/integration/remote-ops-pods.test.ts',
  'test/integration/remote-ops-power.test.ts',
  'test/integration/remote-ops-scp.test.ts',
  'test/integration/remote-ops-transfer.test.ts',
  'test/integration/remote-sessions-more.test.ts',
  'test/integration/remote-terminal.test.ts',
  'test/integration/rollout-halts.test.ts',
  'test/integration/rollout-waves.test.ts',
  'test/integration/sim-fleet-cli.test.ts',
  'test/integration/sim-fleet.test.ts',
  'test/integration/tls-transport.test.ts',
  'test/integration/update-safety.test.ts',
];
const postgresMissingReason = postgresMissing();
const postgresInstalled = postgresMissingReason === undefined;
if (!postgresInstalled) {
  if (process.env['CI'] === 'true')
    throw new Error(`CI needs PostgreSQL for the storage suites: ${postgresMissingReason}`);
  console.warn(
    `PostgreSQL cannot run here (${postgresMissingReason}): the postgres project (server suites on PostgreSQL) is skipped`,
  );
}

export default defineConfig({
  resolve: {
    // Tests run against the TypeScript sources of our own packages, not their build output.
    alias: {
      '@outpost/shared': here('./shared/src/index.ts'),
    },
  },
  test: {
    // CI runs the suites two at a time on 2 cores with the servers and droplets they spawn: a test that starts a
    // droplet through tsx may wait half a minute before its own work on a loaded machine. A hung test still fails.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // expect.poll gives up after 1 s by default: less than a loaded machine may take to answer one HTTP request
    expect: { poll: { timeout: 20_000 } },
    // Under CI a failed test runs once more, so that one slow moment of a loaded machine does not fail the run; a
    // test that passes only on its retry is listed at the end of the run as flaky (scripts/vitest/).
    retry: process.env['CI'] === 'true' ? 1 : 0,
    reporters: ['default', './scripts/vitest/flaky-tests-reporter.ts'],
    pool: 'forks',
    // vitest's default is one file at a time on 2 cores (cores - 1); most integration files wait on the processes
    // they spawn, so two at a time halves the run (CI runs it on Node 20 and again on 22 within its 90 minutes)
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'default',
          include: [
            'shared/test/**/*.test.ts',
            'agent/test/**/*.test.ts',
            'control-plane/test/**/*.test.ts',
            'test/integration/**/*.test.ts',
            'images/test/**/*.test.ts',
          ],
        },
      },
      ...(postgresInstalled
        ? [
            {
              extends: true as const,
              test: {
                name: 'postgres',
                include: POSTGRES_SERVER_SUITES,
                env: { OUTPOST_TEST_DATABASE: 'postgres' },
                globalSetup: ['control-plane/test/helpers/postgres-global-setup.ts'],
              },
            },
          ]
        : []),
    ],
  },
});
