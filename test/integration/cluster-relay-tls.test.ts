/**
 * Issue 23, the relay between replicas serving TLS: three replica processes on one PostgreSQL serve HTTPS with a
 * certificate of a throwaway CA. A and B trust that CA for the relay (--cluster-ca): a reboot through B reaches
 * the device linked to A. C trusts only the system's CAs: it refuses A's certificate, and the same reboot through
 * C is UNAVAILABLE, naming the replica it could not reach. Skipped without PostgreSQL, except under CI=true.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AGENT_CONNECT_PATH, ApiError } from '@outpost/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { fetchTrusting } from '../../control-plane/src/cli/trusted-ca.js';
import { startPostgresCluster } from '../../control-plane/test/helpers/postgres-cluster.js';
import type { PostgresCluster } from '../../control-plane/test/helpers/postgres-cluster.js';
import { clusterTestsSkipped, startReplica } from './helpers/cluster-replicas.js';
import { perAttempt } from './helpers/per-attempt.js';
import type { Replica } from './helpers/cluster-replicas.js';
import { createTestCa, issueServerCertificate } from './helpers/test-certificates.js';
import type { TestCa } from './helpers/test-certificates.js';

const skipped = clusterTestsSkipped('cluster relay TLS test');
const PARENT = 'projects/relaying/regions/eu';
// generous: a loaded machine is slow, and the wait ends as soon as the command goes through
const WAIT_MS = 60_000;

/** A device's agent link on `replica` over TLS that answers every command; resolves once welcomed. */
async function answeringDevice(replica: Replica, credential: string, ca: string): Promise<{ commands: string[] }> {
  const socket = new WebSocket(`${replica.url.replace(/^http/, 'ws')}${AGENT_CONNECT_PATH}`, {
    headers: { authorization: `Bearer ${credential}` },
    ca,
  });
  const commands: string[] = [];
  await new Promise<void>((resolve, reject) => {
    socket.on('message', (data: Buffer) => {
      const message = JSON.parse(data.toString()) as { type: string; id?: string; command?: string };
      if (message.type === 'welcome') resolve();
      if (message.type !== 'command') return;
      commands.push(message.command ?? '');
      socket.send(JSON.stringify({ type: 'result', id: message.id, ok: true }));
    });
    socket.once('error', reject);
  });
  return { commands };
}

describe.skipIf(skipped)('the relay between replicas serving TLS', () => {
  let postgres: PostgresCluster | undefined;
  let work: string;
  let ca: TestCa;
  const replicas: Replica[] = [];

  beforeAll(async () => {
    postgres = await startPostgresCluster({ durable: false });
    const database = postgres.createDatabase();
    work = mkdtempSync(join(tmpdir(), 'outpost-relay-tls-'));
    ca = createTestCa(work);
    const certificate = issueServerCertificate(ca, work, 'replica');
    const tls = ['--tls-cert', certificate.certFile, '--tls-key', certificate.keyFile];
    const trusting = fetchTrusting(ca.pem);
    for (const args of [
      [...tls, '--cluster-ca', ca.certFile],
      [...tls, '--cluster-ca', ca.certFile],
      tls, // the system's CAs only
    ]) {
      replicas.push(await startReplica(database, args, trusting));
    }
  }, 180_000);

  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    postgres?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('B, trusting the CA, relays a reboot to the device on A; C, not trusting it, cannot reach A', async (context) => {
    const device = perAttempt(context, `${PARENT}/devices/on-a`);
    const [a, b, c] = replicas as [Replica, Replica, Replica];
    expect(a.url).toMatch(/^https:/);
    await a.admin.create(PARENT, 'devices', { name: device });
    const { credential } = await a.admin.request<{ credential: string }>('POST', `/v1/${device}:issueCredential`, {
      body: {},
    });
    const link = await answeringDevice(a, credential, ca.pem);
    // the link's presence claim is written a moment after the welcome: until then B finds no replica holding it
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      try {
        await b.admin.request('POST', `/v1/${device}:reboot`, { body: {} });
        break;
      } catch (err) {
        if (!(err instanceof ApiError) || !/is offline/.test(err.message) || Date.now() > deadline) throw err;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    expect(link.commands).toEqual(['power.reboot']);
    const refused = await c.admin.request('POST', `/v1/${device}:reboot`, { body: {} }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).status).toBe('UNAVAILABLE');
    expect((refused as ApiError).message).toContain(`cannot reach the replica at ${a.url}`);
    expect(link.commands).toEqual(['power.reboot']);
  }, 180_000);
});
