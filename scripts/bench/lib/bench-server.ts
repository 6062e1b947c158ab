import { randomBytes } from 'node:crypto';
import { OutpostClient } from '@outpost/shared';
import { startServer } from '../../../control-plane/dist/server.js';
import type { ServerExtras, StartedServer } from '../../../control-plane/dist/server.js';
import { createLogger } from '../../../control-plane/dist/server/logger.js';

export interface BenchServer extends StartedServer {
  /** the admin API key */
  apiKey: string;
  /** a REST client with the admin key; `fetchImpl` replaces the global fetch (e.g. for a bigger socket pool) */
  client(fetchImpl?: typeof fetch): OutpostClient;
}

/**
 * A real control plane on 127.0.0.1 (any free port) whose SQLite file lives in `dataDir` (its resources in
 * `options.database` when given: see --database), logging nothing.
 * It is the built control plane (control-plane/dist, what `npm start` runs), not its TypeScript sources run
 * through tsx, whose transform wraps every function it creates (esbuild keepNames) and so slows the hot paths
 * a benchmark measures. Import this module dynamically after requireBuiltPackages(['shared', 'control-plane']).
 */
export async function startBenchServer(
  dataDir: string,
  extras: ServerExtras = {},
  options: { database?: string } = {},
): Promise<BenchServer> {
  const apiKey = `bench-admin-${randomBytes(16).toString('hex')}`;
  const server = await startServer(
    {
      host: '127.0.0.1',
      port: 0,
      dataDir,
      adminKey: apiKey,
      logLevel: 'silent',
      heartbeatSeconds: 15,
      ...(options.database !== undefined ? { database: options.database } : {}),
    },
    createLogger('silent'),
    extras,
  );
  return {
    ...server,
    apiKey,
    client: (fetchImpl) =>
      new OutpostClient({ server: server.url, apiKey, fetch: fetchImpl, userAgent: 'outpost-bench' }),
  };
}
