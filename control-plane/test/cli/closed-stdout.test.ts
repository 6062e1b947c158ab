import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_READER_GONE } from '../../src/cli/io.js';
import { startTestServer, TEST_ADMIN_KEY, type TestServer } from '../helpers/test-server.js';

// `outpost ... | head -1`: the reader closes the pipe before the CLI writes. The bin as installed (the build output).
const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  server.engine.resource('devices').put({ name: 'projects/pa/regions/eu/devices/gw-1', spec: {} });
});
afterAll(() => server.dispose());

/** Runs the CLI with a stdout pipe whose reading end is closed at once; answers its exit code and stderr. */
function runWithClosedStdout(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { PATH: process.env['PATH'] ?? '', OUTPOST_SERVER: server.url, OUTPOST_API_KEY: TEST_ADMIN_KEY },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.destroy();
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stderr }));
  });
}

describe('the CLI whose reader went away', () => {
  it.each([
    [['devices', 'list', 'devices', '--parent', 'projects/-/regions/-', '-o', 'json']],
    [['devices', 'list', 'devices', '--parent', 'projects/-/regions/-']],
    [['--help']],
  ])(
    'exits quietly: %j',
    async (args) => {
      const result = await runWithClosedStdout(args);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(EXIT_READER_GONE);
    },
    60_000,
  );
});
