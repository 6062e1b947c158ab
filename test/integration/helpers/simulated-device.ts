import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OutpostClient } from '@outpost/shared';

/**
 * Creates the device through `admin`, issues its credential and writes in `root` the configuration of a
 * simulated device (file boot backend) whose agent links to `server`.
 */
export async function provisionSimulatedDevice(
  admin: OutpostClient,
  name: string,
  root: string,
  server: string,
): Promise<void> {
  await admin.create(name.slice(0, name.indexOf('/devices/')), 'devices', { name });
  const { credential } = await admin.request<{ credential: string }>('POST', `/v1/${name}:issueCredential`, {
    body: {},
  });
  mkdirSync(join(root, 'config'), { recursive: true });
  writeFileSync(join(root, 'config', 'credential'), `${credential}\n`, { mode: 0o600 });
  writeFileSync(
    join(root, 'config', 'droplet.json'),
    JSON.stringify({ server, deviceName: name, bootBackend: 'file', factoryVersion: '1.0.0' }),
  );
}

/** The droplet's arguments (after the program) for a simulated device's root: metrics every second, 1 MiB slots. */
export function simulatedDropletArgs(root: string): string[] {
  return [
    '--device-root',
    root,
    '--metrics-interval',
    '1',
    '--slot-size',
    '1M',
    '--log-level',
    'info',
    '--log-file',
    join(root, 'droplet.log'),
  ];
}
