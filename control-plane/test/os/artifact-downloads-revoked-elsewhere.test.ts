/**
 * Issue 23, artifact downloads and another replica's late revocation notice: a device whose credential was rotated
 * through replica A may download at once from replica B with its new credential before A's notice reaches B. The
 * notice then cuts only B's downloads whose credential no longer authenticates (the old one's); the download
 * with the new credential completes intact. Real parts: the artifact routes over HTTP, an artifact store in a
 * temporary folder, and two DeviceCredentials (A's and B's) on one real store.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import express from 'express';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { DeviceCredentials } from '../../src/devices/device-credentials.js';
import { artifactRoutes } from '../../src/os/artifact-routes.js';
import { ArtifactStore } from '../../src/os/artifact-store.js';
import { deviceArtifactAccess } from '../../src/os/device-artifact-access.js';
import { ResourceEngine } from '../../src/resources/resource-engine.js';
import { describeStorages } from '../helpers/storages.js';

const DEVICE = 'projects/p/regions/r/devices/rotated';
// larger than what the sockets buffer, so that a download stays open while its reader waits
const ARTIFACT_BYTES = 48 << 20;

type Ending = { outcome: 'complete'; sha256: string } | { outcome: 'cut' };

/** A download begun and paused after its first bytes. */
interface PausedDownload {
  /** reads it on to its end: how it ends */
  finish(): Promise<Ending>;
}

function beginDownload(url: string, credential: string): Promise<PausedDownload> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { authorization: `Bearer ${credential}` } }, (res) => {
        expect(res.statusCode).toBe(200);
        const hash = createHash('sha256');
        let received = 0;
        const ended = new Promise<Ending>((settle) => {
          res.on('data', (chunk: Buffer) => {
            hash.update(chunk);
            received += chunk.length;
          });
          res.once('end', () =>
            settle(
              received === ARTIFACT_BYTES ? { outcome: 'complete', sha256: hash.digest('hex') } : { outcome: 'cut' },
            ),
          );
          res.once('error', () => settle({ outcome: 'cut' }));
          res.once('aborted', () => settle({ outcome: 'cut' }));
        });
        res.once('data', () => {
          res.pause();
          resolve({
            finish: () => {
              res.resume();
              return ended;
            },
          });
        });
      })
      .on('error', reject);
  });
}

describeStorages('artifact downloads on a late revocation notice', (fresh) => {
  let dir: string;
  let server: http.Server;
  let url: string;
  let replicaA: DeviceCredentials;
  let replicaB: DeviceCredentials;
  let sha256: string;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'outpost-downloads-'));
    const engine = new ResourceEngine(fresh());
    replicaA = new DeviceCredentials(engine.stores.deviceCredentials);
    replicaB = new DeviceCredentials(engine.stores.deviceCredentials);
    const store = new ArtifactStore(dir, { maxBytes: ARTIFACT_BYTES, freeSpaceReserveBytes: 0 });
    ({ sha256 } = await store.put(Readable.from([randomBytes(ARTIFACT_BYTES)])));
    const app = express();
    app.use(
      artifactRoutes(store, {
        ...deviceArtifactAccess(replicaB),
        mayDeviceFetch: () => true,
        authorizeKey: () => {
          throw new Error('only devices download here');
        },
      }),
    );
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/artifacts/${sha256}`;
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('cuts the download with the rotated credential and lets the one with the new credential complete', async () => {
    const old = replicaA.issue(DEVICE);
    const withOld = await beginDownload(url, old);
    const rotated = replicaA.issue(DEVICE); // through A: B is not told yet
    const withNew = await beginDownload(url, rotated);
    replicaB.revokedElsewhere(DEVICE); // A's notice, arriving at B after the download with the new credential began
    expect(await withOld.finish()).toEqual({ outcome: 'cut' });
    expect(await withNew.finish()).toEqual({ outcome: 'complete', sha256 });
  }, 60_000);

  it('a revocation on this replica cuts every download of the device at once', async () => {
    const downloads = [await beginDownload(url, replicaB.issue(DEVICE))];
    downloads.push(await beginDownload(url, replicaB.issue(DEVICE))); // the second issue cut the first
    replicaB.revoke(DEVICE);
    for (const download of downloads) expect(await download.finish()).toEqual({ outcome: 'cut' });
  }, 60_000);
});
