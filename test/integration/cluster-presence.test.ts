/**
 * Issue 23, presence stays true: three real control-plane processes on one PostgreSQL behind Debian's nginx, a
 * real droplet linked through nginx. kill -9 of the replica holding its link: the others mark it Offline (the dead
 * replica's lease expires and the leader sweeps it), it reconnects through nginx to another replica, what the
 * dead one acknowledged is kept, and commands through either survivor reach it. The agent is stopped (SIGSTOP)
 * while its replica dies, so that it cannot reconnect before the Offline is seen; it goes on (SIGCONT) after.
 * Skipped without PostgreSQL or nginx, except under CI=true.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OutpostClient } from '@outpost/shared';
import type { Device } from '@outpost/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { freePort, startPostgresCluster } from '../../control-plane/test/helpers/postgres-cluster.js';
import type { PostgresCluster } from '../../control-plane/test/helpers/postgres-cluster.js';
import { TEST_ADMIN_KEY } from '../../control-plane/test/helpers/test-server.js';
import { clusterTestsSkipped, runsUnderCi, startReplica } from './helpers/cluster-replicas.js';
import type { Replica } from './helpers/cluster-replicas.js';
import { NGINX, startDroplet, startNginx } from './helpers/cluster-devices.js';
import { provisionSimulatedDevice } from './helpers/simulated-device.js';
import { runCli } from './helpers/processes.js';
import type { RunningProcess } from './helpers/processes.js';
import { waitForDevice } from './helpers/wait-for.js';

if (NGINX === undefined && !runsUnderCi) console.warn('cluster presence test skipped: nginx is not installed here');
const skipped = clusterTestsSkipped('cluster presence test') || (NGINX === undefined && !runsUnderCi);
const PARENT = 'projects/presence/regions/eu';
const DEVICE = `${PARENT}/devices/behind-nginx`;
const HEARTBEAT_SECONDS = 2;

const online = (d: Device): boolean => d.status?.connectionStatus === 'CONNECTED';
const offline = (d: Device): boolean => d.status?.connectionStatus === 'DISCONNECTED';

/** Whether the replica's log says the device's link opened on it (the gateway logs each connect). */
const linkedTo = (replica: Replica, count: number): boolean =>
  replica.process
    .output()
    .split('\n')
    .filter((line) => line.includes(`"device":"${DEVICE}"`) && line.includes('"msg":"agent connected"')).length >=
  count;

describe.skipIf(skipped)('device links when a replica dies', () => {
  let postgres: PostgresCluster | undefined;
  const replicas: Replica[] = [];
  let nginx: { stop(): Promise<void> } | undefined;
  let work: string;
  let agent: RunningProcess | undefined;

  // a world per attempt: the test kills one of its replicas, so a retry (CI) needs all three again
  beforeEach(async () => {
    replicas.length = 0;
    postgres = await startPostgresCluster({ durable: false });
    const database = postgres.createDatabase();
    for (let i = 0; i < 3; i++) {
      replicas.push(await startReplica(database, ['--heartbeat-seconds', String(HEARTBEAT_SECONDS)]));
    }
    work = mkdtempSync(join(tmpdir(), 'outpost-presence-'));
    const port = await freePort();
    nginx = await startNginx(
      join(work, 'nginx'),
      port,
      replicas.map((r) => Number(new URL(r.url).port)),
    );
    const balanced = `http://127.0.0.1:${port}`;
    const root = join(work, 'device');
    await provisionSimulatedDevice(
      new OutpostClient({ server: balanced, apiKey: TEST_ADMIN_KEY }),
      DEVICE,
      root,
      balanced,
    );
    agent = startDroplet(root);
    await waitForDevice(replicas[0]!.admin, DEVICE, online, 60_000);
  }, 180_000);

  afterEach(async () => {
    if (agent?.child.pid !== undefined) agent.child.kill('SIGCONT');
    await agent?.stop('SIGKILL');
    await nginx?.stop();
    await Promise.all(replicas.map((r) => r.stop()));
    postgres?.stop();
    rmSync(work, { recursive: true, force: true });
    agent = undefined;
    nginx = undefined;
    postgres = undefined;
  });

  it('kill -9 of its replica: Offline on the others, back through nginx to another, commands re-route', async () => {
    const holder = replicas.find((r) => linkedTo(r, 1));
    expect(holder, 'a replica logged the link').toBeDefined();
    const survivors = replicas.filter((r) => r !== holder);
    const acknowledged = `${PARENT}/devices/acknowledged-by-the-dead`;
    await holder!.admin.create(PARENT, 'devices', { name: acknowledged });

    const seenOffline = waitForDevice(survivors[0]!.admin, DEVICE, offline, 60_000);
    agent!.child.kill('SIGSTOP');
    await holder!.stop('SIGKILL');
    const marked = await seenOffline;
    expect(marked.status?.connectionStatus).toBe('DISCONNECTED');

    agent!.child.kill('SIGCONT');
    await waitForDevice(survivors[1]!.admin, DEVICE, online, 60_000);
    expect(survivors.some((r) => linkedTo(r, 1))).toBe(true);
    expect((await survivors[1]!.admin.get<{ name: string }>(acknowledged)).name).toBe(acknowledged);

    for (const through of survivors) {
      const before = (await through.admin.get<Device>(DEVICE)).status?.agent?.bootId;
      const result = await runCli(['devices', 'reboot', DEVICE, '--force'], {
        OUTPOST_SERVER: through.url,
        OUTPOST_API_KEY: TEST_ADMIN_KEY,
      });
      expect(result.code, result.stderr).toBe(0);
      await waitForDevice(through.admin, DEVICE, (d) => online(d) && d.status?.agent?.bootId !== before, 60_000);
    }
  }, 240_000);
});
