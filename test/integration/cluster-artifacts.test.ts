/**
 * Issue 23, artifacts everywhere: two real control-plane processes on one PostgreSQL share one artifact
 * directory (--artifact-dir). An OS version published through A is downloaded through B (whole, a Range, a
 * revalidation with If-None-Match), a device linked to B upgrades from it, and garbage collection through A keeps
 * an artifact B is serving until that download ends, also after B's coordination connection (which holds the
 * artifact locks) was cut and made again, and while it is cut (B's leased hold record stands). Skipped without PostgreSQL, except under CI=true.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACT_LOCK_SPACE } from '../../control-plane/src/cluster/artifact-locks.js';
import { LIVE_LOCK_KEY } from '../../control-plane/src/cluster/cluster-member.js';
import { TEST_ADMIN_KEY } from '../../control-plane/test/helpers/test-server.js';
import { clusterTestsSkipped } from './helpers/cluster-replicas.js';
import type { Replica } from './helpers/cluster-replicas.js';
import { DeviceTimeline } from './helpers/device-timeline.js';
import { DROPLET, startProcess } from './helpers/processes.js';
import { cliEnv, publishSimulated110 } from './helpers/published-os.js';
import type { RunningProcess } from './helpers/processes.js';
import { provisionSimulatedDevice } from './helpers/simulated-ota.js';
import { twoReplicasOnePostgres } from './helpers/two-replicas.js';

const skipped = clusterTestsSkipped('cluster artifacts test');
// named here (the replicas' arguments are fixed when the suite is declared), made only when the suite runs
const work = join(tmpdir(), `outpost-cluster-artifacts-${randomUUID()}`);
const artifactDir = join(work, 'artifacts');
const auth = { authorization: `Bearer ${TEST_ADMIN_KEY}` };
const parent = 'projects/cluster/regions/eu';

interface Published {
  sha256: string;
  size: number;
  bytes: Buffer;
}

describe.skipIf(skipped)('OS artifacts of control-plane replicas sharing --artifact-dir', () => {
  // before the replicas start (hooks run in the order declared); removed after they stop
  beforeAll(() => void mkdirSync(artifactDir, { recursive: true }));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  const replicas = twoReplicasOnePostgres(['--artifact-dir', artifactDir, '--heartbeat-seconds', '1']);
  let a: Replica;
  let b: Replica;
  let published: Published;
  const agents: RunningProcess[] = [];
  const timelines: DeviceTimeline[] = [];

  beforeAll(async () => {
    a = replicas.a();
    b = replicas.b();
    const bytes = randomBytes(3 * 1024 * 1024);
    published = { ...(await publishSimulated110(a, work, bytes)), bytes };
  }, 120_000);
  afterEach(async () => {
    timelines.splice(0).forEach((timeline) => timeline.close());
    await Promise.all(agents.splice(0).map((agent) => agent.stop('SIGKILL')));
  });

  it('are served by the other replica: whole, a Range, and 304 for If-None-Match', async () => {
    const url = `${b.url}/v1/artifacts/${published.sha256}`;
    const whole = await fetch(url, { headers: auth });
    expect(whole.status).toBe(200);
    expect(whole.headers.get('etag')).toBe(`"${published.sha256}"`);
    expect(Buffer.from(await whole.arrayBuffer()).equals(published.bytes)).toBe(true);

    const part = await fetch(url, { headers: { ...auth, range: 'bytes=1000-1999' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 1000-1999/${published.size}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(published.bytes.subarray(1000, 2000))).toBe(true);

    const revalidated = await fetch(url, { headers: { ...auth, 'if-none-match': `"${published.sha256}"` } });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get('etag')).toBe(`"${published.sha256}"`);
    const changed = await fetch(url, { headers: { ...auth, 'if-none-match': '"something-else"' } });
    expect(changed.status).toBe(200);
    await changed.arrayBuffer();
  });

  it('let a device linked to the other replica upgrade', async () => {
    const name = `${parent}/devices/upgrades-on-b`;
    const root = join(work, 'upgrades-on-b');
    await provisionSimulatedDevice(cliEnv(b), name, root, join(work, 'signing.pub'));
    const timeline = new DeviceTimeline(b.admin, name);
    timelines.push(timeline);
    agents.push(startProcess(DROPLET, ['--device-root', root, '--metrics-interval', '30', '--log-level', 'warn']));
    await timeline.until((s) => s.connection === 'CONNECTED' && s.running === '1.0.0', 90_000);
    const mark = timeline.mark();
    await a.admin.update({ name, spec: { osVersion: '1.1.0' } }, { updateMask: 'spec.osVersion' });
    const done = await timeline.until(
      (s) => s.connection === 'CONNECTED' && s.running === '1.1.0' && s.osReady?.reason === 'Converged',
      120_000,
      mark,
    );
    expect(done.running).toBe('1.1.0');
  }, 240_000);

  it('are kept by garbage collection through one replica while the other serves them', async () => {
    const served = await servedByB();
    expect(await collectThroughA()).not.toContain(served.sha256);
    expect(existsSync(served.file)).toBe(true);
    expect(existsSync(join(artifactDir, published.sha256))).toBe(true);

    served.download.destroy();
    // B lets go of the artifact once it sees the download end
    await until(async () => (await collectThroughA()).includes(served.sha256), 'GC through A removes the artifact');
    expect(existsSync(served.file)).toBe(false);
    expect(existsSync(join(artifactDir, published.sha256))).toBe(true);
  }, 120_000);

  /** A 48 MiB artifact uploaded through A and a download of it through B, paused (it stays open while paused). */
  async function servedByB(): Promise<{ file: string; sha256: string; download: http.IncomingMessage }> {
    const upload = await fetch(`${a.url}/v1/artifacts`, { method: 'PUT', headers: auth, body: randomBytes(48 << 20) });
    expect(upload.status).toBe(200);
    const { sha256 } = (await upload.json()) as { sha256: string };
    const download = await new Promise<http.IncomingMessage>((resolve, reject) =>
      http.get(`${b.url}/v1/artifacts/${sha256}`, { headers: auth }, resolve).on('error', reject),
    );
    expect(download.statusCode).toBe(200);
    download.pause();
    return { file: join(artifactDir, sha256), sha256, download };
  }

  /** Garbage collection through A: the digests it removed. */
  async function collectThroughA(): Promise<string[]> {
    const res = await fetch(`${a.url}/v1/artifacts:collectGarbage`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ minAgeSeconds: 0 }),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { removed: { sha256: string }[] }).removed.map((r) => r.sha256);
  }

  /** An observer of the database: the sessions holding artifact locks, and cutting sessions. */
  async function observe<T>(work: (observer: Observer) => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: replicas.database() });
    await client.connect();
    const observer: Observer = {
      artifactLockHolders: async () => {
        const { rows } = await client.query<{ pid: number }>(
          "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND classid = $1::bigint::oid AND objsubid = 2",
          [ARTIFACT_LOCK_SPACE],
        );
        return rows.map((row) => row.pid);
      },
      cut: async (pids) => {
        await client.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [pids]);
        await until(async () => {
          const { rows } = await client.query('SELECT 1 FROM pg_stat_activity WHERE pid = ANY($1::int[])', [pids]);
          return rows.length === 0;
        }, 'the cut sessions (and their locks) are gone');
      },
      liveLockHolders: async () => {
        const { rows } = await client.query<{ pid: number }>(
          "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objid = $1::bigint::oid AND objsubid = 1",
          [LIVE_LOCK_KEY],
        );
        return rows.map((row) => row.pid);
      },
    };
    try {
      return await work(observer);
    } finally {
      await client.end();
    }
  }

  it('are kept while served by a replica whose coordination connection was cut: it takes their locks again', async () => {
    const served = await servedByB();
    try {
      await observe(async (observer) => {
        await until(async () => (await observer.artifactLockHolders()).length === 1, 'B holds the artifact');
        // every replica's coordination connection holds the live lock: both are cut, and connect again
        await observer.cut(await observer.liveLockHolders());
        await until(
          async () => (await observer.artifactLockHolders()).length === 1,
          'B holds the artifact again once connected',
        );
      });
      expect(await collectThroughA()).not.toContain(served.sha256);
      expect(existsSync(served.file)).toBe(true);
    } finally {
      served.download.destroy();
    }
  }, 120_000);

  it('are kept while served by a replica that has no coordination connection: its leased hold stands', async () => {
    const served = await servedByB();
    const pid = b.process.child.pid!;
    try {
      await observe(async (observer) => {
        await until(async () => (await observer.artifactLockHolders()).length === 1, 'B holds the artifact');
        // B is stopped so that it cannot connect again, and its coordination connection (the lock's) is cut
        process.kill(pid, 'SIGSTOP');
        await observer.cut(await observer.artifactLockHolders());
        expect(await observer.artifactLockHolders()).toEqual([]);
        expect(await collectThroughA()).not.toContain(served.sha256);
        expect(existsSync(served.file)).toBe(true);
      });
    } finally {
      process.kill(pid, 'SIGCONT');
      served.download.destroy();
    }
    // B lets go of its hold once it sees the download end
    await until(async () => (await collectThroughA()).includes(served.sha256), 'GC through A removes the artifact');
    expect(existsSync(served.file)).toBe(false);
  }, 120_000);
});

interface Observer {
  artifactLockHolders(): Promise<number[]>;
  liveLockHolders(): Promise<number[]>;
  cut(pids: readonly number[]): Promise<void>;
}

async function until(condition: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
