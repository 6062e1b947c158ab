/**
 * Issue 23, catching up on revocations: a replica that did not listen while a key was revoked through another
 * replica ends that key's remote sessions (port forward, terminal) once it listens again. Two real control-plane
 * processes on one PostgreSQL and a real droplet linked to A. Skipped without PostgreSQL, except under CI=true.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Device } from '@outpost/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { CONNECT_PERMISSION } from '../../control-plane/src/remote/remote-access-endpoint.js';
import { clusterTestsSkipped } from './helpers/cluster-replicas.js';
import { startDroplet } from './helpers/cluster-devices.js';
import { revokeWhileDeaf } from './helpers/deaf-replica.js';
import type { RunningProcess } from './helpers/processes.js';
import { provisionSimulatedDevice } from './helpers/simulated-device.js';
import { twoReplicasOnePostgres } from './helpers/two-replicas.js';
import { waitForDevice } from './helpers/wait-for.js';

const skipped = clusterTestsSkipped('cluster catch-up test');
const PROJECT = 'projects/catching-up';
const DEVICE = `${PROJECT}/regions/eu/devices/on-a`;
// generous: a loaded machine is slow, and each wait ends as soon as its condition holds
const WAIT_MS = 60_000;

describe.skipIf(skipped)('a replica that listens again catches up on revocations', () => {
  const replicas = twoReplicasOnePostgres();
  let work: string;
  let agent: RunningProcess | undefined;
  let target: Server;
  const held: Socket[] = [];

  beforeAll(async () => {
    const a = replicas.a();
    work = mkdtempSync(join(tmpdir(), 'outpost-catch-up-'));
    const root = join(work, 'device');
    await provisionSimulatedDevice(a.admin, DEVICE, root, a.url);
    agent = startDroplet(root);
    const online = (d: Device): boolean => d.status?.connectionStatus === 'CONNECTED';
    await waitForDevice(a.admin, DEVICE, (d) => online(d) && d.status?.agent?.bootId !== undefined, WAIT_MS);
    // what the forward reaches on the device's side: a server that keeps each connection open
    target = createServer((socket) => held.push(socket));
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  }, 180_000);

  afterAll(async () => {
    held.forEach((socket) => socket.destroy());
    target?.close();
    await agent?.stop('SIGKILL');
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('a port forward of a key revoked through B while A did not listen ends once A listens again', async () => {
    const [a, b] = [replicas.a(), replicas.b()];
    const key = await a.admin.request<{ apiKey: { name: string }; secret: string }>('POST', '/v1/apiKeys', {
      body: { displayName: 'forwarder', grants: [{ permission: CONNECT_PERMISSION, scope: PROJECT }] },
    });
    const port = (target.address() as AddressInfo).port;
    const session = new WebSocket(
      `${a.url.replace(/^http/, 'ws')}/v1/${DEVICE}:portForward?host=127.0.0.1&port=${port}`,
      { headers: { authorization: `Bearer ${key.secret}` } },
    );
    const closed = new Promise<string>((resolve) =>
      session.once('close', (code, reason) => resolve(`${code} ${reason}`)),
    );
    await new Promise<void>((resolve, reject) => {
      session.once('open', () => resolve());
      session.once('unexpected-response', (_req, res) => reject(new Error(`forward refused: ${res.statusCode}`)));
    });

    await revokeWhileDeaf(a, replicas.database(), key.apiKey.name, () => b.admin.delete(key.apiKey.name));
    const stillOpen = new Promise<string>((resolve) => setTimeout(() => resolve('still open'), WAIT_MS).unref());
    expect(await Promise.race([closed, stillOpen])).toMatch(/was revoked/);
  }, 180_000);
});
