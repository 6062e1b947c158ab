import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OutpostClient } from '@outpost/shared';
import { until, withTimeout } from './time.js';

/** Waits (at most 30 s) until the control plane at `server` answers its health check. */
export function controlPlaneUp(server: string): Promise<void> {
  return withTimeout(
    until(async () => (await fetch(`${server}/healthz`)).ok),
    30_000,
    'the control plane to start',
  );
}

/**
 * Creates the device `deviceName` (projects/../regions/../devices/..) through the API, issues its credential and
 * writes the device root a droplet started with `--device-root root` connects from: config/credential and
 * config/droplet.json naming `server`.
 */
export async function provisionDeviceRoot(
  admin: OutpostClient,
  deviceName: string,
  server: string,
  root: string,
): Promise<void> {
  const parent = deviceName.slice(0, deviceName.lastIndexOf('/devices/'));
  await admin.create(parent, 'devices', { name: deviceName });
  const { credential } = await admin.request<{ credential: string }>('POST', `/v1/${deviceName}:issueCredential`, {
    body: {},
  });
  mkdirSync(join(root, 'config'), { recursive: true });
  writeFileSync(join(root, 'config', 'credential'), `${credential}\n`, { mode: 0o600 });
  writeFileSync(join(root, 'config', 'droplet.json'), JSON.stringify({ server, deviceName }));
}

/** Waits (at most 30 s) until the device's record says it is connected. */
export function deviceConnected(admin: OutpostClient, deviceName: string): Promise<void> {
  const connected = async (): Promise<boolean> =>
    (await admin.get<{ status?: { connectionStatus?: string } }>(deviceName)).status?.connectionStatus === 'CONNECTED';
  return withTimeout(until(connected), 30_000, 'the agent to connect');
}

/**
 * Counts, through a watch of the device, how often it goes Offline from now on (a link that heartbeats could not
 * keep up); `stop()` ends the watch and answers the count.
 */
export function countDisconnects(admin: OutpostClient, deviceName: string): { stop(): Promise<number> } {
  let disconnects = 0;
  const watcher = new AbortController();
  const watching = (async () => {
    for await (const message of admin.watch<{
      change: Record<string, { device?: { status?: { connectionStatus?: string } } }>;
    }>(`/v1/${deviceName}:watch`, {}, watcher.signal)) {
      if (Object.values(message.change)[0]?.device?.status?.connectionStatus === 'DISCONNECTED') disconnects += 1;
    }
  })().catch(() => undefined);
  return {
    stop: async () => {
      watcher.abort();
      await watching;
      return disconnects;
    },
  };
}
