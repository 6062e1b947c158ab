import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFile, readdir } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { reportedDeviceInfoSchema } from '@outpost/shared';
import { builtDroplet } from '../../helpers/built-droplet.js';
import { eventually } from '../../helpers/eventually.js';
import type { JsonMessage } from '../../helpers/test-gateway.js';
import { TestGateway } from '../../helpers/test-gateway.js';
import { useTempDirs } from '../../helpers/temp-dir.js';

const tempDir = useTempDirs();
const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));

const running: ChildProcess[] = [];
afterEach(() => {
  for (const child of running.splice(0)) child.kill('SIGKILL');
});

/** Registration answers for device edge-1 of projects/p1/regions/eu. */
function registration(request: IncomingMessage, response: ServerResponse): void {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ device: { name: 'projects/p1/regions/eu/devices/edge-1' }, credential: 'cred' }));
  });
}

const commandLine = (pid: number): Promise<string> =>
  readFile(`/proc/${pid}/cmdline`, 'utf8').then(
    (text) => text.replaceAll('\0', ' '),
    () => '',
  );

/** The processes whose parent is `pid`. */
async function childrenOf(pid: number): Promise<number[]> {
  const children: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) children.push(Number(entry));
  }
  return children;
}

const inventoryIn = (m: JsonMessage): boolean =>
  (m['deviceInfo'] as { hardwareInformation?: { fileSystems?: unknown } } | undefined)?.hardwareInformation
    ?.fileSystems !== undefined;

describe('a real droplet reports its inventory', () => {
  it('sends the systeminformation inventory in its status, and the collector process is gone afterwards', async () => {
    const gateway = await TestGateway.start({ onRequest: registration });
    try {
      const env: NodeJS.ProcessEnv = { ...process.env };
      for (const key of Object.keys(env)) if (key.startsWith('DROPLET_')) delete env[key];
      const child = spawn(
        process.execPath,
        [
          builtDroplet(),
          '--device-root',
          await tempDir(),
          '--server',
          gateway.url,
          '--provisioning-token',
          'token',
          '--project',
          'p1',
          '--region',
          'eu',
          '--device-id',
          'edge-1',
          '--boot-backend',
          'none',
          // the configuration parts write under this root, never the host's /etc
          '--system-root',
          await tempDir(),
        ],
        { cwd: repoRoot, env, stdio: ['ignore', 'ignore', 'ignore'] },
      );
      running.push(child);
      const connection = await gateway.connection(0);
      connection.welcome();

      const status = await eventually(() => connection.waitFor('status', inventoryIn), 30_000);
      const deviceInfo = reportedDeviceInfoSchema.parse(status['deviceInfo']);
      expect(deviceInfo.managedFeatures).toEqual({ os: false, osUpgrade: false });
      expect(deviceInfo.hardwareInformation?.fileSystems?.map((fs) => fs.mount)).toContain('/');
      expect(deviceInfo.hardwareInformation?.memory?.modules?.length).toBeGreaterThan(0);

      // the collector (the bundle's dist/inventory-collector.js) has exited (the agent's other parts may run short
      // commands of their own at start)
      const collectors = async (): Promise<string[]> =>
        (await Promise.all((await childrenOf(child.pid ?? -1)).map((pid) => commandLine(pid)))).filter((command) =>
          command.includes('inventory-collector.js'),
        );
      await eventually(async () => expect(await collectors()).toEqual([]), 10_000);
    } finally {
      await gateway.close();
    }
  }, 60_000);
});
