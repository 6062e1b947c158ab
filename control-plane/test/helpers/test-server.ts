import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { OutpostClient } from '@outpost/shared';
import { startServer } from '../../src/server.js';
import type { ServerExtras, StartedServer } from '../../src/server.js';
import type { ServerConfig } from '../../src/server/config.js';
import { testDatabaseIn } from './test-database.js';

export const TEST_ADMIN_KEY = 'test-admin-key-0123456789abcdef-0123';

export interface TestServer extends StartedServer {
  dataDir: string;
  admin: OutpostClient;
  clientWith(apiKey: string): OutpostClient;
  /** stops the server and removes its data */
  dispose(): Promise<void>;
}

/**
 * A real control plane on 127.0.0.1 with a fresh SQLite file in a temporary folder (and, under
 * OUTPOST_TEST_DATABASE=postgres, its resources in a fresh PostgreSQL database: see test-database.ts). A server
 * started again on the same `dataDir` finds the data of the one before on either store.
 */
export interface TestServerOptions {
  /** reuse this data folder (it is then not removed) */
  dataDir?: string;
  port?: number;
  heartbeatSeconds?: number;
  /** further server settings (flags) */
  config?: Partial<ServerConfig>;
}

export async function startTestServer(extras: ServerExtras = {}, options: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir;
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), 'outpost-test-'));
  const server = await startServer(
    {
      host: '127.0.0.1',
      port: options.port ?? 0,
      dataDir: dir,
      adminKey: TEST_ADMIN_KEY,
      logLevel: 'silent',
      heartbeatSeconds: options.heartbeatSeconds ?? 15,
      // this server shares its event loop with the test's own synchronous work (spawnSync, seeding), which is not
      // load it should shed links for; servers run as processes keep the default (connect-shedding.test.ts)
      shedUpgradesLagMs: 0,
      ...(options.config?.database === undefined ? testDatabaseIn(dir) : {}),
      ...options.config,
    },
    pino({ level: 'silent' }),
    extras,
  );
  const clientWith = (apiKey: string): OutpostClient => new OutpostClient({ server: server.url, apiKey });
  return {
    ...server,
    dataDir: dir,
    admin: clientWith(TEST_ADMIN_KEY),
    clientWith,
    dispose: async () => {
      await server.close();
      if (!dataDir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
