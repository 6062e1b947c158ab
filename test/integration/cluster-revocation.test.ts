/**
 * Issue 23, revocation reaches every replica: two real control-plane processes on one PostgreSQL. A key's watch
 * stream open on replica A ends when the key is revoked through replica B, and the key is refused on A after;
 * a device linked to A loses its link when its credential is revoked through B, and cannot link again
 * (cluster/revocation-notices.ts); and when the revocation happens while A does not listen (its connection for
 * LISTEN was lost), A closes the link once it listens again. A notice that reaches B after the device linked to B
 * with the credential it announces leaves that link open, and an artifact download begun there with it completes
 * intact. Skipped without PostgreSQL, except under CI=true.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AGENT_CONNECT_PATH } from '@outpost/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { openPausedWatch } from '../../control-plane/test/helpers/paused-watch.js';
import { clusterTestsSkipped } from './helpers/cluster-replicas.js';
import type { Replica } from './helpers/cluster-replicas.js';
import { revokeWhileDeaf } from './helpers/deaf-replica.js';
import { announceLate } from './helpers/late-notice.js';
import { perAttempt } from './helpers/per-attempt.js';
import { publishSimulated110 } from './helpers/published-os.js';
import { twoReplicasOnePostgres } from './helpers/two-replicas.js';

const skipped = clusterTestsSkipped('cluster revocation test');
const PARENT = 'projects/revoking/regions/eu';
const WATCH_DEVICES = 'services/devices.outpost/permissions/devices.watch';
// generous: a loaded machine is slow, and each wait ends as soon as its condition holds
const WAIT_MS = 60_000;
// larger than what the sockets buffer, so that a download stays open while its reader waits
const IMAGE_BYTES = 48 << 20;

/** Opens a device's agent link on `replica` with `credential`; resolves once welcomed, with the close code to come. */
async function linkDevice(replica: Replica, credential: string): Promise<{ closed: Promise<number> }> {
  const socket = new WebSocket(`${replica.url.replace(/^http/, 'ws')}${AGENT_CONNECT_PATH}`, {
    headers: { authorization: `Bearer ${credential}` },
  });
  const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    socket.on('message', (data: Buffer) => {
      if ((JSON.parse(data.toString()) as { type: string }).type === 'welcome') resolve();
    });
    socket.once('unexpected-response', (_req, res) => reject(new Error(`link refused: ${res.statusCode}`)));
  });
  return { closed };
}

/** Begins a device's download of an artifact from `replica`, paused after its head: read it on with `readToEnd`. */
function beginDownload(replica: Replica, sha256: string, credential: string): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) =>
    http
      .get(`${replica.url}/v1/artifacts/${sha256}`, { headers: { authorization: `Bearer ${credential}` } }, (res) => {
        res.pause();
        res.on('error', () => {}); // a cut shows as an incomplete response
        resolve(res);
      })
      .on('error', reject),
  );
}

/** Reads a download to its end: whether it completed, and the sha256 of what it received. */
async function readToEnd(download: http.IncomingMessage): Promise<{ complete: boolean; sha256: string }> {
  const hash = createHash('sha256');
  download.on('data', (chunk: Buffer) => hash.update(chunk)).resume();
  await new Promise((resolve) => download.once('close', resolve));
  return { complete: download.complete, sha256: hash.digest('hex') };
}

/** Resolves with `value` after `ms` (what a wait that may never end gives instead). */
const after = <T>(ms: number, value: T): Promise<T> =>
  new Promise((resolve) => setTimeout(() => resolve(value), ms).unref());

/** The HTTP status with which `replica` refuses a device's agent link. */
function linkRefusal(replica: Replica, credential: string): Promise<number> {
  const socket = new WebSocket(`${replica.url.replace(/^http/, 'ws')}${AGENT_CONNECT_PATH}`, {
    headers: { authorization: `Bearer ${credential}` },
  });
  // terminating the refused handshake emits an error: the refusal is what is awaited
  socket.on('error', () => {});
  return new Promise((resolve, reject) => {
    socket.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      socket.terminate();
    });
    socket.once('open', () => {
      socket.terminate();
      reject(new Error('the link opened'));
    });
  });
}

describe.skipIf(skipped)('revocation across control-plane replicas on one PostgreSQL', () => {
  const replicas = twoReplicasOnePostgres();
  const work = mkdtempSync(join(tmpdir(), 'outpost-revocation-'));
  let artifact: { sha256: string };
  beforeAll(async () => {
    // through B, which serves it below: B knows the version at once
    artifact = await publishSimulated110(replicas.b(), work, randomBytes(IMAGE_BYTES));
  }, 180_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('a key revoked through B ends its watch stream on A, and A refuses it after', async () => {
    const [a, b] = [replicas.a(), replicas.b()];
    const key = await a.admin.request<{ apiKey: { name: string }; secret: string }>('POST', '/v1/apiKeys', {
      body: { displayName: 'watcher', grants: [{ permission: WATCH_DEVICES, scope: 'projects/revoking' }] },
    });
    const watch = await openPausedWatch(`${a.url}/v1/${PARENT}/devices:watch`, key.secret, {});
    try {
      expect(watch.status).toBe(200);
      expect(await watch.readUntil(() => true, WAIT_MS)).toHaveLength(1);
      await b.admin.delete(key.apiKey.name);
      const rest = await watch.readUntil((message) => 'error' in message, WAIT_MS);
      expect(rest.at(-1)).toEqual({
        error: { code: 401, status: 'UNAUTHENTICATED', message: `${key.apiKey.name} was revoked` },
      });
      expect(await watch.readUntil(() => false, WAIT_MS)).toEqual([]);
      expect(watch.ended()).toBe(true);
      const refused = await fetch(`${a.url}/v1/${PARENT}/devices`, {
        headers: { authorization: `Bearer ${key.secret}` },
      });
      expect(refused.status).toBe(401);
    } finally {
      watch.close();
    }
  }, 180_000);

  it('a device credential revoked through B drops the device link on A, which then refuses it', async (context) => {
    const [a, b] = [replicas.a(), replicas.b()];
    const device = perAttempt(context, `${PARENT}/devices/linked-to-a`);
    await a.admin.create(PARENT, 'devices', { name: device });
    const { credential } = await a.admin.request<{ credential: string }>('POST', `/v1/${device}:issueCredential`, {
      body: {},
    });
    const link = await linkDevice(a, credential);
    await b.admin.request('POST', `/v1/${device}:revokeCredential`, { body: {} });
    expect(await link.closed).toBe(4003); // CREDENTIAL_REVOKED_CLOSE_CODE, as on the revoking replica
    // logged as A closed the link, but on A's own pipe: it may reach this process after the close did
    await expect
      .poll(() => a.process.output(), { timeout: 20_000 })
      .toMatch(/agent disconnected: device credential revoked/);
    expect(await linkRefusal(a, credential)).toBe(401);
  }, 180_000);

  it('a device credential revoked through B while A did not listen drops the link on A once A listens again', async (context) => {
    const [a, b] = [replicas.a(), replicas.b()];
    const device = perAttempt(context, `${PARENT}/devices/revoked-while-a-was-deaf`);
    await a.admin.create(PARENT, 'devices', { name: device });
    const { credential } = await a.admin.request<{ credential: string }>('POST', `/v1/${device}:issueCredential`, {
      body: {},
    });
    const link = await linkDevice(a, credential);
    await revokeWhileDeaf(a, replicas.database(), device, () =>
      b.admin.request('POST', `/v1/${device}:revokeCredential`, { body: {} }),
    );
    expect(await Promise.race([link.closed, after(WAIT_MS, 'still open')])).toBe(4003);
    expect(await linkRefusal(a, credential)).toBe(401);
  }, 180_000);

  it('a late notice of a credential issued through A leaves the link B welcomed with that credential', async (context) => {
    const [a, b] = [replicas.a(), replicas.b()];
    const issue = async (name: string): Promise<string> => {
      await a.admin.create(PARENT, 'devices', { name });
      const issued = await a.admin.request<{ credential: string }>('POST', `/v1/${name}:issueCredential`, { body: {} });
      return issued.credential;
    };
    const fresh = perAttempt(context, `${PARENT}/devices/linked-before-the-notice`);
    const link = await linkDevice(b, await issue(fresh));
    // the issue's notice, as it arrives when B welcomed the link before reading it (seen 7 times in 20 links)
    await announceLate(replicas.database(), fresh);
    // then one that must close a link on B: B reads notices in order, and logs each link it closes in order
    const revoked = perAttempt(context, `${PARENT}/devices/revoked-after-the-notice`);
    const revokedLink = await linkDevice(b, await issue(revoked));
    await a.admin.request('POST', `/v1/${revoked}:revokeCredential`, { body: {} });
    expect(await revokedLink.closed).toBe(4003);
    const closedOnB = (device: string): RegExp =>
      new RegExp(`"device":"${device}"[^\n]*agent disconnected: device credential revoked`);
    await expect.poll(() => b.process.output(), { timeout: 20_000 }).toMatch(closedOnB(revoked));
    expect(b.process.output()).not.toMatch(closedOnB(fresh));
    expect(await Promise.race([link.closed, Promise.resolve('open')])).toBe('open');
  }, 180_000);

  it('a late notice of a credential issued through A leaves the artifact download B began with it to complete', async (context) => {
    const [a, b] = [replicas.a(), replicas.b()];
    // provisioned as type simulated, the type of the version published above, so that it may fetch its artifact
    const device = perAttempt(context, `${PARENT}/devices/downloading-before-the-notice`);
    await a.admin.create(PARENT, 'devices', { name: device });
    const { credential } = await a.admin.request<{ credential: string }>('POST', `/v1/${device}:provision`, {
      body: { deviceType: 'simulated', factoryVersion: '1.0.0' },
    });
    const download = await beginDownload(b, artifact.sha256, credential);
    expect(download.statusCode).toBe(200);
    // the provisioning's notice, as it arrives when B began the download before reading it
    await announceLate(replicas.database(), device);
    // then one that must close a link on B: B reads notices in order, so the late one was acted on before it
    const revoked = perAttempt(context, `${PARENT}/devices/revoked-after-the-download`);
    await a.admin.create(PARENT, 'devices', { name: revoked });
    const revokedLink = await linkDevice(
      b,
      (await a.admin.request<{ credential: string }>('POST', `/v1/${revoked}:issueCredential`, { body: {} }))
        .credential,
    );
    await a.admin.request('POST', `/v1/${revoked}:revokeCredential`, { body: {} });
    expect(await revokedLink.closed).toBe(4003);
    expect(await readToEnd(download)).toEqual({ complete: true, sha256: artifact.sha256 });
  }, 180_000);
});
