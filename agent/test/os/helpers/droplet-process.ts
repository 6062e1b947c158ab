import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtDroplet } from '../../helpers/built-droplet.js';
import { DEVICE_CREDENTIAL, DEVICE_NAME } from './fake-control-plane.js';
import { trustKey } from './os-images.js';
import type { SigningKey } from './os-images.js';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));

export interface DropletProcess {
  child: ChildProcess;
  output: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** A provisioned simulated device (file backend) talking to `server`, trusting `key`. */
export async function provisionSimulatedDevice(deviceRoot: string, server: string, key: SigningKey): Promise<void> {
  await mkdir(join(deviceRoot, 'config'), { recursive: true });
  await writeFile(
    join(deviceRoot, 'config', 'droplet.json'),
    JSON.stringify({ server, deviceName: DEVICE_NAME, bootBackend: 'file', factoryVersion: '1.0.0' }),
  );
  await writeFile(join(deviceRoot, 'config', 'credential'), `${DEVICE_CREDENTIAL}\n`);
  await trustKey(deviceRoot, key);
}

/** The real droplet command in a child process (the built agent/dist/main.js). */
export function startDropletProcess(
  deviceRoot: string,
  args: string[] = [],
  extraEnv: Record<string, string> = {},
): DropletProcess {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extraEnv };
  for (const key of Object.keys(env)) if (key.startsWith('DROPLET_')) delete env[key];
  for (const key of Object.keys(env)) if (key.startsWith('OUTPOST_TEST_') && !(key in extraEnv)) delete env[key];
  const child = spawn(
    process.execPath,
    [
      builtDroplet(),
      '--device-root',
      deviceRoot,
      '--boot-backend',
      'file',
      '--factory-version',
      '1.0.0',
      '--slot-size',
      '16M',
      '--log-level',
      'debug',
      ...args,
    ],
    { cwd: repoRoot, env },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, output: () => output, exit };
}
