import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArtifactHoldLeases } from '../../src/cluster/artifact-hold-leases.js';
import { PgArtifactHolds } from '../../src/resources/storage/postgres/pg-artifact-holds.js';
import { postgresMissing, startPostgresCluster } from '../helpers/postgres-cluster.js';
import type { PostgresCluster } from '../helpers/postgres-cluster.js';

const missing = postgresMissing();
const skipped = missing !== undefined && process.env['CI'] !== 'true';
if (skipped) console.warn(`artifact hold leases test skipped: ${missing}; CI=true requires PostgreSQL`);

const SHA = (n: number): string => n.toString(16).padStart(64, '0');

async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  for (const deadline = Date.now() + 60_000; !(await condition());) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.skipIf(skipped)('leased artifact holds of the replicas [postgres]', () => {
  let cluster: PostgresCluster;
  let url: string;
  let observer: pg.Client;
  const stores: (PgArtifactHolds | undefined)[] = [];
  const leases: ArtifactHoldLeases[] = [];
  const errors: unknown[] = [];
  beforeAll(async () => {
    cluster = await startPostgresCluster({ durable: false });
    url = cluster.createDatabase();
    observer = new pg.Client({ connectionString: url });
    await observer.connect();
  }, 120_000);
  afterAll(async () => {
    leases.forEach((lease) => lease.stop());
    await observer?.end();
    await Promise.all(stores.map((store, i) => store?.close(`holder-${i}`)));
    cluster?.stop();
  });

  async function replica(options: { leaseMs: number; renewEveryMs: number }): Promise<ArtifactHoldLeases> {
    const records = await PgArtifactHolds.open(url, (err) => errors.push(err));
    const lease = new ArtifactHoldLeases({
      records,
      holder: `holder-${stores.length}`,
      ...options,
      onError: (err) => errors.push(err),
    });
    stores.push(records);
    leases.push(lease);
    return lease;
  }

  const expiresOf = async (sha256: string): Promise<number> => {
    const { rows } = await observer.query<{ expires: Date }>(
      'SELECT expires FROM outpost_artifact_holds WHERE sha256 = $1',
      [sha256],
    );
    return rows[0]?.expires.getTime() ?? 0;
  };

  it('a hold is seen by the other replicas, not by its own, until it is released', async () => {
    const serving = await replica({ leaseMs: 60_000, renewEveryMs: 60_000 });
    const collecting = await replica({ leaseMs: 60_000, renewEveryMs: 60_000 });
    await serving.hold(SHA(1));
    expect(await collecting.heldElsewhere(SHA(1))).toBe(true);
    expect(await serving.heldElsewhere(SHA(1))).toBe(false);
    expect(await collecting.heldElsewhere(SHA(2))).toBe(false);
    await serving.release(SHA(1));
    expect(await collecting.heldElsewhere(SHA(1))).toBe(false);
    expect(errors).toEqual([]);
  });

  it('a served artifact is renewed, and a hold that is not renewed stops counting once its lease runs out', async () => {
    const renewing = await replica({ leaseMs: 60_000, renewEveryMs: 50 });
    const collecting = await replica({ leaseMs: 60_000, renewEveryMs: 60_000 });
    await renewing.hold(SHA(3));
    const first = await expiresOf(SHA(3));
    await until(async () => (await expiresOf(SHA(3))) > first, 'the hold is renewed');

    const silent = await replica({ leaseMs: 300, renewEveryMs: 60_000 });
    await silent.hold(SHA(4));
    await until(async () => !(await collecting.heldElsewhere(SHA(4))), 'the unrenewed hold lapses');
    expect(await observer.query('SELECT 1 FROM outpost_artifact_holds WHERE sha256 = $1', [SHA(4)])).toMatchObject({
      rowCount: 0,
    });
    expect(await collecting.heldElsewhere(SHA(3))).toBe(true);
    expect(errors).toEqual([]);
  });

  it('a replica that closes removes its holds', async () => {
    const closing = await replica({ leaseMs: 60_000, renewEveryMs: 60_000 });
    const collecting = await replica({ leaseMs: 60_000, renewEveryMs: 60_000 });
    await closing.hold(SHA(5));
    expect(await collecting.heldElsewhere(SHA(5))).toBe(true);
    closing.stop();
    const index = leases.indexOf(closing);
    await stores.splice(index, 1, undefined)[0]!.close(`holder-${index}`);
    expect(await collecting.heldElsewhere(SHA(5))).toBe(false);
    expect(errors).toEqual([]);
  });
});
