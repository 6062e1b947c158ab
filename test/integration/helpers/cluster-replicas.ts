import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OutpostClient } from '@outpost/shared';
import { TEST_ADMIN_KEY } from '../../../control-plane/test/helpers/test-server.js';
import { postgresMissing } from '../../../control-plane/test/helpers/postgres-cluster.js';
import { REPO, startProcess } from './processes.js';
import type { RunningProcess } from './processes.js';

export const SERVER_MAIN = `${REPO}control-plane/dist/server/main.js`;
export const runsUnderCi = !['', '0', 'false'].includes(process.env['CI'] ?? '');

/** Why the cluster tests skip here (undefined: they run); under CI=true they never skip. */
export function clusterTestsSkipped(name: string): boolean {
  const missing = postgresMissing();
  if (missing === undefined) return false;
  if (runsUnderCi) throw new Error(`${name} needs PostgreSQL under CI=true: ${missing}`);
  // the default reporter shows a skip only as a count: say why on stderr too
  console.warn(`${name} skipped: ${missing} (apt-get install postgresql); CI=true requires it`);
  return true;
}

/** One control-plane replica: a real server process on the shared database, with its own data folder. */
export interface Replica {
  url: string;
  admin: OutpostClient;
  process: RunningProcess;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Starts a server process on `database`; resolves once it listens (its log says where). `adminFetch`: the fetch
 * of its admin client (one trusting a test CA, for a replica serving TLS).
 */
export async function startReplica(
  database: string,
  extraArgs: readonly string[] = [],
  adminFetch?: typeof fetch,
): Promise<Replica> {
  const dataDir = mkdtempSync(join(tmpdir(), 'outpost-replica-'));
  const running = startProcess(
    SERVER_MAIN,
    ['--port', '0', '--data-dir', dataDir, '--database', database, ...extraArgs],
    { OUTPOST_ADMIN_KEY: TEST_ADMIN_KEY },
  );
  const url = await new Promise<string>((resolve, reject) => {
    const look = (): void => {
      const found = /"url":"(https?:\/\/[^"]+)"[^\n]*"msg":"listening"/.exec(running.output());
      if (found) resolve(found[1]!);
    };
    running.child.stdout?.on('data', look);
    running.child.stderr?.on('data', look);
    void running.exited.then(({ code, signal }) =>
      reject(new Error(`replica exited (${code ?? signal}) before listening:\n${running.output()}`)),
    );
  });
  return {
    url,
    admin: new OutpostClient({ server: url, apiKey: TEST_ADMIN_KEY, ...(adminFetch ? { fetch: adminFetch } : {}) }),
    process: running,
    stop: async (signal) => {
      await running.stop(signal);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
