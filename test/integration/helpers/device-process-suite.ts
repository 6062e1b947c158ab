import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { startTestServer, TEST_ADMIN_KEY } from '../../../control-plane/test/helpers/test-server.js';
import type { TestServer } from '../../../control-plane/test/helpers/test-server.js';
import type { RunningProcess } from './processes.js';

/** A suite of real droplet processes against one test server (1 s heartbeats). */
export interface DeviceProcessSuite {
  readonly server: TestServer;
  /** droplet processes of the running test: killed after it */
  readonly agents: RunningProcess[];
  /** a fresh device root, removed after the suite */
  newRoot(): string;
  /** the environment the CLI needs to reach the server as admin */
  cliEnv(): Record<string, string>;
}

/** Starts the server before the suite's tests and cleans up after each test and after the suite. */
export function deviceProcessSuite(rootPrefix: string): DeviceProcessSuite {
  let server: TestServer | undefined;
  const agents: RunningProcess[] = [];
  const roots: string[] = [];
  beforeAll(async () => {
    server = await startTestServer({}, { heartbeatSeconds: 1 });
  });
  afterEach(async () => {
    await Promise.all(agents.splice(0).map((a) => a.stop('SIGKILL')));
  });
  afterAll(async () => {
    await server?.dispose();
    await Promise.all(roots.map((r) => rm(r, { recursive: true, force: true })));
  });
  const started = (): TestServer => {
    if (!server) throw new Error('the test server did not start');
    return server;
  };
  return {
    get server() {
      return started();
    },
    agents,
    newRoot: () => {
      const dir = mkdtempSync(join(tmpdir(), rootPrefix));
      roots.push(dir);
      return dir;
    },
    cliEnv: () => ({ OUTPOST_SERVER: started().url, OUTPOST_API_KEY: TEST_ADMIN_KEY }),
  };
}
