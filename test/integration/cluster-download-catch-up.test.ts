/**
 * Issue 23, catching up on revocations, device downloads: a replica that did not listen while a device's
 * credential was revoked through another replica cuts that device's artifact download once it listens again
 * (server.ts's catch-up re-checks the credentials of the downloads in progress, os/device-downloads.ts). Two real
 * control-plane processes on one PostgreSQL; the device downloads with its own credential, without a link.
 * Skipped without PostgreSQL, except under CI=true.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterTestsSkipped } from './helpers/cluster-replicas.js';
import { revokeWhileDeaf } from './helpers/deaf-replica.js';
import { publishSimulated110 } from './helpers/published-os.js';
import { twoReplicasOnePostgres } from './helpers/two-replicas.js';

const skipped = clusterTestsSkipped('cluster download catch-up test');
const PARENT = 'projects/catching-up-downloads/regions/eu';
// generous: a loaded machine is slow, and each wait ends as soon as its condition holds
const WAIT_MS = 60_000;
// larger than what the sockets buffer, so that a download stays open while its reader waits
const IMAGE_BYTES = 48 << 20;

async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  for (const deadline = Date.now() + WAIT_MS; !(await condition());) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.skipIf(skipped)('a replica that listens again catches up on revoked device credentials', () => {
  const replicas = twoReplicasOnePostgres();
  const work = mkdtempSync(join(tmpdir(), 'outpost-download-catch-up-'));
  let sha256: string;
  let attempt = 0;

  beforeAll(async () => {
    const a = replicas.a();
    ({ sha256 } = await publishSimulated110(a, work, randomBytes(IMAGE_BYTES)));
  }, 180_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("a device's download on A of a credential revoked through B while A did not listen ends once A listens again", async () => {
    const [a, b] = [replicas.a(), replicas.b()];
    // a device of its own per attempt (a retry's would have been revoked), provisioned as type simulated: the
    // type of the version published above, so that it may fetch its artifact
    const device = `${PARENT}/devices/downloading-on-a-${++attempt}`;
    await a.admin.create(PARENT, 'devices', { name: device });
    const { credential } = await a.admin.request<{ credential: string }>('POST', `/v1/${device}:provision`, {
      body: { deviceType: 'simulated', factoryVersion: '1.0.0' },
    });
    const download = await new Promise<http.IncomingMessage>((resolve, reject) =>
      http
        .get(`${a.url}/v1/artifacts/${sha256}`, { headers: { authorization: `Bearer ${credential}` } }, resolve)
        .on('error', reject),
    );
    expect(download.statusCode).toBe(200);
    download.pause();
    download.on('error', () => {}); // a cut shows as an aborted response
    const observer = new pg.Client({ connectionString: replicas.database() });
    await observer.connect();
    try {
      // a paused reader would not see the cut (the end waits behind the unread bytes): A's hold of the artifact,
      // released when its answer closes, tells instead
      const holds = async (): Promise<number> => {
        const { rows } = await observer.query<{ n: string }>(
          'SELECT count(*) AS n FROM outpost_artifact_holds WHERE sha256 = $1',
          [sha256],
        );
        return Number(rows[0]!.n);
      };
      await until(async () => (await holds()) === 1, 'A holds the artifact it serves');
      await revokeWhileDeaf(a, replicas.database(), device, () =>
        b.admin.request('POST', `/v1/${device}:revokeCredential`, { body: {} }),
      );
      await until(async () => (await holds()) === 0, 'A ends the download');
      let received = 0;
      download.on('data', (chunk: Buffer) => (received += chunk.length)).resume();
      await new Promise((resolve) => download.once('close', resolve));
      expect(download.complete).toBe(false);
      expect(received).toBeLessThan(IMAGE_BYTES);
      const refused = await fetch(`${a.url}/v1/artifacts/${sha256}`, {
        headers: { authorization: `Bearer ${credential}` },
      });
      expect(refused.status).toBe(401);
    } finally {
      await observer.end();
      download.destroy();
    }
  }, 180_000);
});
